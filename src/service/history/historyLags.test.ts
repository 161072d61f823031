/**
 * A day generated for history steps the engine as cheaply as its day keys allow (stepModeOf:
 * 'gamma' for GEX chains, 'front' for the front sets' categories) and keeps 30-minute rings in its
 * zero / one sets (TickerDay's 'rings' lags) instead of deriving the 5- to 30-minute priors. Its
 * payloads must be the bytes the live loop's configuration gives (every greek, derived lags),
 * past the 30-minute mark too, where every lag reads a second of the session, not the open.
 */
import { describe, expect, it } from 'vitest';
import { TickerDay } from '../engine/tickerDay';
import { viewFormatAt } from '../engine/live';
import { viewOf } from '../market/universe';
import { dayValue, stepModeOf, type DayKey } from './dayKeys';
import { DAY_PARTS } from './tickerDayProcesses';

const DATE = '2026-11-18';
/** The parts' shares, and front-set GEX chains asked with another front category. */
const SHARES: readonly (readonly DayKey[])[] = [
	...DAY_PARTS,
	['gex_zero', 'state_gex_one', 'volume_one']
];

describe('history days: cheaper steps and 30-minute rings', () => {
	it('pick the step mode from the day keys', () => {
		expect(SHARES.map(stepModeOf)).toEqual(['gamma', 'front', 'front']);
		expect(stepModeOf(['gex_zero', 'delta_one'])).toBe('front');
		expect(stepModeOf(['gex_full', 'delta_one'])).toBe('rings');
		expect(stepModeOf(['state_gex_full', 'orderflow'])).toBe('rings');
	});

	for (const keys of SHARES) {
		const mode = stepModeOf(keys);
		it(`serialise ${keys.join(', ')} (${mode} steps) as the live loop does`, () => {
			const source = viewOf('NVDA')!.source;
			const live = new TickerDay(3, source, DATE);
			const history = new TickerDay(3, source, DATE, 'rings');
			expect(history.subsets.zero.gexRing.depth).toBe(1801);
			let compared = 0;
			for (let t = 0; t < 2000; t++) {
				expect(live.step('rings')).toBe(true);
				expect(history.step(mode)).toBe(true);
				if (!(t % 97 === 0 || (t >= 1798 && t <= 1802) || t === 1999)) continue;
				const format = viewFormatAt(3, 'NVDA', DATE, t);
				for (const key of keys) {
					const want = JSON.stringify(dayValue(live, key, format));
					expect(JSON.stringify(dayValue(history, key, format)), `${key} t ${t}`).toBe(want);
					compared++;
				}
			}
			expect(compared).toBeGreaterThan(20 * keys.length);
			// Volume-weighted values are nonzero by then: the comparison is not of zeros.
			expect(history.subsets.zero.gexVol.some((v) => v !== 0)).toBe(true);
		}, 60_000);
	}
});
