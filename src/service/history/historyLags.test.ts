/**
 * A day generated for history keeps 30-minute rings in its zero / one sets (TickerDay's 'rings'
 * lags) instead of deriving the 5- to 30-minute priors as the live loop does: the payloads must be
 * the same bytes either way, in both engine modes a history part steps in, past the 30-minute mark
 * where every lag reads a second of the session rather than the open.
 */
import { describe, expect, it } from 'vitest';
import { TickerDay } from '../engine/tickerDay';
import { viewFormatAt } from '../engine/live';
import { viewOf } from '../market/universe';
import { dayValue, gammaOnly, type DayKey } from './dayKeys';
import { DAY_PARTS } from './tickerDayProcesses';

const DATE = '2026-11-18';

describe('history days with 30-minute rings', () => {
	for (const keys of DAY_PARTS) {
		const mode = gammaOnly(keys) ? 'gamma' : 'rings';
		it(`serialise every ${mode}-mode day key as the derived lags do`, () => {
			const source = viewOf('NVDA')!.source;
			const derived = new TickerDay(3, source, DATE);
			const rings = new TickerDay(3, source, DATE, 'rings');
			expect(rings.subsets.zero.gexRing.depth).toBe(1801);
			let compared = 0;
			for (let t = 0; t < 2000; t++) {
				expect(derived.step(mode)).toBe(true);
				expect(rings.step(mode)).toBe(true);
				if (!(t % 97 === 0 || (t >= 1798 && t <= 1802) || t === 1999)) continue;
				const format = viewFormatAt(3, 'NVDA', DATE, t);
				for (const key of keys as readonly DayKey[]) {
					const want = JSON.stringify(dayValue(derived, key, format));
					expect(JSON.stringify(dayValue(rings, key, format)), `${key} t ${t}`).toBe(want);
					compared++;
				}
			}
			expect(compared).toBeGreaterThan(20 * keys.length);
			// Volume-weighted values are nonzero by then: the comparison is not of zeros.
			expect(rings.subsets.zero.gexVol.some((v) => v !== 0)).toBe(true);
		});
	}
});
