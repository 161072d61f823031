/**
 * The zero / one sets' derived lags (subsetLags.ts) against what a 30-minute ring of the same
 * row vectors holds: stepped second by second through the day's first 40 minutes, every lag of
 * every row of GEX and each greek's call and put profile is the same Float32 value.
 */
import { describe, expect, it } from 'vitest';
import { CHANGE_LAGS, Lookback, SHORT_LAG_DEPTH } from './lookback';
import { GREEK_NAMES, TickerDay } from './tickerDay';

describe('derived long lags of the zero / one sets', () => {
	it('equal a 30-minute ring at every lag, second by second', () => {
		const day = new TickerDay(3, 'NVDA', '2026-11-18');
		const sets = [day.subsets.zero, day.subsets.one];
		const reference = sets.map((s) => {
			const rows = s.rowSlots.length;
			const per = () => Object.fromEntries(GREEK_NAMES.map((g) => [g, new Lookback(rows)]));
			return { gex: new Lookback(rows), call: per(), put: per() };
		});
		let checked = 0;
		for (let t = 0; t < 2400; t++) {
			expect(day.step('rings')).toBe(true);
			sets.forEach((s, k) => {
				const ref = reference[k];
				ref.gex.push(day.tick, s.gexVol);
				for (const g of GREEK_NAMES) {
					ref.call[g].push(day.tick, s.greekCall![g]);
					ref.put[g].push(day.tick, s.greekPut![g]);
				}
			});
			// Every second near the 30-minute mark (when the longest lag leaves the open), else sampled.
			if (!(t % 37 === 0 || (t >= 1795 && t <= 1810) || t === 2399)) continue;
			sets.forEach((s, k) => {
				const ref = reference[k];
				const pairs: [string, (typeof s)['gexLookback'], Lookback][] = [
					['gex', s.gexLookback, ref.gex]
				];
				for (const g of GREEK_NAMES) {
					pairs.push([`call ${g}`, s.greekCallLookback![g], ref.call[g]]);
					pairs.push([`put ${g}`, s.greekPutLookback![g], ref.put[g]]);
				}
				for (const [name, series, ring] of pairs) {
					for (const lag of CHANGE_LAGS) {
						const got = Array.from({ length: ring.rows }, (_, r) => series.at(r, lag));
						const want = Array.from({ length: ring.rows }, (_, r) => ring.at(r, lag));
						expect(got, `${s.name} ${name} t ${t} lag ${lag}`).toEqual(want);
					}
					expect(Array.from({ length: ring.rows }, (_, r) => series.current(r))).toEqual(
						Array.from({ length: ring.rows }, (_, r) => ring.current(r))
					);
				}
			});
			checked++;
		}
		expect(checked).toBeGreaterThan(60);
		// Nonzero volume-weighted values by then, so the comparison is not of zeros.
		expect(day.subsets.zero.gexVol.some((v) => v !== 0)).toBe(true);
	});

	it('keep a minute of rings in the zero / one sets and 30 minutes in the full set', () => {
		const day = new TickerDay(3, 'NVDA', '2026-11-18');
		expect(day.subsets.zero.gexRing.depth).toBe(SHORT_LAG_DEPTH);
		expect(day.subsets.one.greekCallRing!.gamma.depth).toBe(SHORT_LAG_DEPTH);
		expect(day.subsets.full.gexRing.depth).toBe(1801);
		expect(() => day.subsets.zero.gexRing.at(0, 300)).toThrow(RangeError);
	});
});
