import { describe, expect, it } from 'vitest';
import { formatShare, formatSignedRatio, formatUsdMillions } from './orderflowFormat';

describe('orderflow formats', () => {
	it('writes $ millions as signed dollars with a unit prefix', () => {
		expect(formatUsdMillions(12.34)).toBe('+$12.3M');
		expect(formatUsdMillions(-1250)).toBe('\u2212$1.25B');
		expect(formatUsdMillions(0.5)).toBe('+$500k');
		expect(formatUsdMillions(0)).toBe('$0');
		expect(formatUsdMillions(NaN)).toBe('–');
	});

	it('signs ratios and shows shares as percentages', () => {
		expect(formatSignedRatio(0.12345)).toBe('+0.123');
		expect(formatSignedRatio(-0.5)).toBe('\u22120.500');
		expect(formatSignedRatio(0)).toBe('0.000');
		expect(formatShare(0.625)).toBe('62.5%');
	});
});
