/**
 * The shared `day` / `at` share-link parameters: parsed strictly (a malformed link is a clear
 * error, not a silent "today"), the heatmap's old `t` still read, and written links read back
 * to the same time while the view's other parameters survive.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTimeLink, withTimeLink } from './timeLink';
import { ViewStateError } from './viewState';

const q = (s: string) => new URLSearchParams(s);

describe('timeLink', () => {
	it('reads day and at, and the older t', () => {
		expect(parseTimeLink(q(''))).toEqual({ day: null, at: null });
		expect(parseTimeLink(q('day=2026-11-23&at=1795446000'))).toEqual({
			day: '2026-11-23',
			at: 1795446000
		});
		expect(parseTimeLink(q('t=1795446001'))).toEqual({ day: null, at: 1795446001 });
	});

	it('refuses a malformed day or moment with a message naming it', () => {
		for (const bad of ['day=2026-02-30', 'day=today', 'at=soon', 'at=-5', 'at=1.5']) {
			expect(() => parseTimeLink(q(bad))).toThrow(ViewStateError);
		}
		expect(() => parseTimeLink(q('day=23-11-2026'))).toThrow(/YYYY-MM-DD, got '23-11-2026'/);
	});

	it('writes day and at into a view URL, keeping its other parameters', () => {
		expect(withTimeLink('/SPX/orderflow?charts=dex,spot', { day: '2026-11-23', at: 17 })).toBe(
			'/SPX/orderflow?charts=dex,spot&day=2026-11-23&at=17'
		);
		expect(withTimeLink('/SPX/heatmap/gex_full?t=5&metric=oi', { day: null, at: null })).toBe(
			'/SPX/heatmap/gex_full?metric=oi'
		);
		expect(withTimeLink('/levels/SPX', { day: null, at: 9.6 })).toBe('/levels/SPX?at=10');
	});

	it('round-trips any day and moment', () => {
		const day = fc
			.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
			.map((d) => d.toISOString().slice(0, 10));
		fc.assert(
			fc.property(
				fc.option(day),
				fc.option(fc.integer({ min: 1, max: 4_000_000_000 })),
				(d, at) => {
					const link = { day: d, at };
					const url = new URL(withTimeLink('/SPX/orderflow?exp=zero', link), 'http://x');
					expect(parseTimeLink(url.searchParams)).toEqual(link);
					expect(url.searchParams.get('exp')).toBe('zero');
				}
			)
		);
	});
});
