import { describe, expect, it } from 'vitest';
import {
	MINUS,
	formatBytes,
	formatCount,
	formatFixed,
	formatGex,
	formatGexChange,
	formatPercent,
	formatPoints,
	formatPrice,
	formatSi,
	formatSigned,
	formatStrike,
	formatTickPrice,
	formatUsd
} from './format';

describe('the one number format', () => {
	it('writes strikes as the strike grid has them', () => {
		expect(formatStrike(7580)).toBe('7,580');
		expect(formatStrike(7582.5)).toBe('7,582.5');
		expect(formatStrike(450)).toBe('450');
	});

	it('writes GEX in dollars per 1% move from the service millions', () => {
		expect(formatGex(-24_800)).toBe(`${MINUS}$24.8B`);
		expect(formatGex(512)).toBe('$512M');
		expect(formatGex(0.5)).toBe('$500k');
		expect(formatGex(0)).toBe('$0');
		expect(formatGexChange(512)).toBe('+$512M');
		expect(formatGexChange(-1.2)).toBe(`${MINUS}$1.2M`);
		expect(formatUsd(2.5e9)).toBe('$2.5B');
		// Passed to map(), the index must not turn into a sign.
		expect([1, 2].map(formatGex)).toEqual(['$1M', '$2M']);
	});

	it('uses one minus sign, U+2212, everywhere', () => {
		const all = [
			formatGex(-3),
			formatPrice(-20.05),
			formatSigned(-0.041, 3),
			formatFixed(-1.5, 1),
			formatPercent(-0.0123, 2),
			formatPoints(-20.05),
			formatSi(-228),
			formatSi(-0.5),
			formatStrike(-5),
			formatTickPrice(-1.3, 0.25)
		];
		for (const s of all) {
			expect(s, s).toContain(MINUS);
			expect(s, s).not.toContain('-');
		}
		expect(formatSigned(1.5)).toBe('+1.50');
		expect(formatSigned(0)).toBe('0.00');
		expect(formatSigned(-0.001)).toBe('0.00');
	});

	it('rounds futures prices to their tick', () => {
		expect(formatTickPrice(7600.92, 0.25)).toBe('7,601.00');
		expect(formatTickPrice(7600.6, 0.25)).toBe('7,600.50');
		expect(formatTickPrice(44_210.4, 1)).toBe('44,210');
		expect(formatTickPrice(2001.26, 0.1)).toBe('2,001.3');
	});

	it('writes distances, percentages, counts and sizes', () => {
		expect(formatPoints(12.5)).toBe('+12.5 pts');
		expect(formatPoints(-1486.1)).toBe(`${MINUS}1,486.1 pts`);
		expect(formatPercent(0.0123, 2, true)).toBe('+1.23%');
		expect(formatCount(12345.4)).toBe('12,345');
		expect(formatBytes(23622 * 1024)).toBe('23.1 MB');
		expect(formatBytes(512)).toBe('512 B');
		expect(formatBytes(1.25 * 1024 ** 3)).toBe('1.25 GB');
		expect(formatBytes(300 * 1024)).toBe('300 KB');
	});
});
