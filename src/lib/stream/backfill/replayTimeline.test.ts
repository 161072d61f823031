import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { spxChain } from '../../wire/arbitraries.test-support';
import { ChunkBuilder, type RingChunk } from '../ring/ringChunk';
import { chainChunk } from '../ring/ringChunk.test-support';
import { etDay } from '../../contract/newYorkTime';
import {
	formatBehind,
	formatReplayTime,
	frameChain,
	framesOf,
	nearestFrame,
	recordedSession,
	sessionFrames,
	timelineRange,
	withFreshChunks,
	type RecordedFrame
} from './replayTimeline';

const chain = spxChain(40);
// 2026-01-01 14:30:00 UTC = 09:30:00 ET (EST), a multiple of 60.
const T0 = 1_767_277_800;

const chunk = (timestamps: number[], spot = 7000): RingChunk =>
	chainChunk(chain, timestamps, (ts) => spot + (ts - T0));

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('framesOf', () => {
	it('lists the rows that kept a ladder, oldest first, across chunks', () => {
		const frames = framesOf([chunk(range(T0 + 60, T0 + 70)), chunk(range(T0, T0 + 60))]);
		expect(frames.map((f) => f.timestamp - T0)).toEqual([
			0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65
		]);
	});

	it('keeps one frame per timestamp and skips chunks of other kinds', () => {
		const spot = new ChunkBuilder('SPX_spot', 'spot', T0);
		spot.append({
			kind: 'spot',
			group: 'SPX_spot',
			ticker: 'SPX',
			timestamp: T0,
			value: { ticker: 'SPX', timestamp: T0, spot: 1 }
		});
		const frames = framesOf([chunk([T0, T0 + 5]), chunk([T0, T0 + 5]), spot.seal()]);
		expect(frames.map((f) => f.timestamp)).toEqual([T0, T0 + 5]);
	});
});

describe('withFreshChunks', () => {
	it('replaces a grown span and keeps the others, sorted', () => {
		const a = chunk(range(T0, T0 + 60));
		const b1 = chunk(range(T0 + 60, T0 + 70));
		const b2 = chunk(range(T0 + 60, T0 + 80));
		const c = chunk(range(T0 + 120, T0 + 125));
		const out = withFreshChunks([a, b1], [c, b2]);
		expect(out).toEqual([a, b2, c]);
	});
});

describe('nearestFrame', () => {
	const frames = framesOf([chunk(range(T0, T0 + 60))]); // every 5 s

	it('finds the nearest snapshot, the earlier one on a tie', () => {
		expect(nearestFrame(frames, T0)).toBe(0);
		expect(nearestFrame(frames, T0 + 2)).toBe(0);
		expect(nearestFrame(frames, T0 + 2.5)).toBe(0);
		expect(nearestFrame(frames, T0 + 3)).toBe(1);
		expect(nearestFrame(frames, T0 - 100)).toBe(0);
		expect(nearestFrame(frames, T0 + 1000)).toBe(frames.length - 1);
		expect(nearestFrame([], T0)).toBe(-1);
	});

	it('matches a linear scan (property)', () => {
		fc.assert(
			fc.property(
				fc.uniqueArray(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 50 }),
				fc.integer({ min: -100, max: 10_100 }),
				(times, t) => {
					const sorted = [...times].sort((a, b) => a - b);
					const fs = sorted.map((timestamp) => ({ timestamp }) as RecordedFrame);
					const got = nearestFrame(fs, t);
					const best = Math.min(...sorted.map((x) => Math.abs(x - t)));
					expect(Math.abs(sorted[got] - t)).toBe(best);
					// On a tie the earlier frame wins.
					expect(sorted.findIndex((x) => Math.abs(x - t) === best)).toBe(got);
				}
			)
		);
	});
});

describe('sessionFrames and timelineRange', () => {
	it("keeps only the newest recording's New York day", () => {
		// 23:59:55 ET on Dec 31 and 00:00:00 ET on Jan 1 fall on different ET days.
		const midnightEt = T0 - 9.5 * 3600; // 2026-01-01 00:00 ET
		const frames = framesOf([
			chunk([midnightEt - 60, midnightEt - 5]),
			chunk([midnightEt, midnightEt + 5])
		]);
		expect(frames).toHaveLength(4);
		expect(etDay(midnightEt - 5)).toBe('2025-12-31');
		expect(etDay(midnightEt)).toBe('2026-01-01');
		const today = sessionFrames(frames);
		expect(today.map((f) => f.timestamp)).toEqual([midnightEt, midnightEt + 5]);
		expect(timelineRange(today)).toEqual({ from: midnightEt, to: midnightEt + 5, count: 2 });
		expect(sessionFrames([])).toEqual([]);
		expect(timelineRange([])).toBeNull();
	});

	it('agrees with an ET day per frame, across DST changes and gaps (property)', () => {
		// Sorted, distinct timestamps spread over a few days around the March 2026 DST change.
		const from = 1_772_841_600; // 2026-03-07 00:00 UTC
		fc.assert(
			fc.property(
				fc.uniqueArray(fc.integer({ min: 0, max: 4 * 86_400 }), { maxLength: 40 }),
				(offsets) => {
					const frames = offsets
						.sort((a, b) => a - b)
						.map((o) => ({ timestamp: from + o }) as RecordedFrame);
					const newest = frames.at(-1);
					const want = newest
						? frames.filter((f) => etDay(f.timestamp) === etDay(newest.timestamp))
						: [];
					expect(sessionFrames(frames)).toEqual(want);
				}
			)
		);
	});
});

describe('labels', () => {
	it('reads New York time, with the date when it is not the live day', () => {
		expect(formatReplayTime(T0 + 65)).toBe('09:31:05 ET');
		expect(formatReplayTime(T0 - 86_400, T0)).toBe('Dec 31, 09:30:00 ET');
		// Summer time: 2026-07-01 13:30:00 UTC = 09:30:00 EDT.
		expect(formatReplayTime(1_782_912_600)).toBe('09:30:00 ET');
	});

	it('says how far behind live', () => {
		expect(formatBehind(0)).toBe('0s');
		expect(formatBehind(45.4)).toBe('45s');
		expect(formatBehind(125)).toBe('2m 05s');
		expect(formatBehind(3720)).toBe('1h 02m');
		expect(formatBehind(-3)).toBe('0s');
	});
});

describe('frameChain', () => {
	it("gives back the recorded levels and ladder as the Classic view's columns", () => {
		const [f] = framesOf([chunk([T0 + 10])]);
		const c = frameChain(f, 'SPX');
		expect(c.timestamp).toBe(T0 + 10);
		expect(c.ticker).toBe('SPX');
		expect(c.spot).toBe(7010);
		expect(c.zeroGamma).toBeCloseTo(chain.zero_gamma, 6);
		expect(c.majorPosVol).toBe(chain.major_pos_vol);
		expect(c.sumGexOi).toBeCloseTo(chain.sum_gex_oi, 6);
		expect(c.strikes).toHaveLength(40);
		expect(c.gexVol).toHaveLength(40);
		expect(c.strikes[3]).toBe(chain.strikes[3][0]);
		expect(c.gexVol[3]).toBeCloseTo(chain.strikes[3][1], 0);
		expect(c.gexOi[3]).toBeCloseTo(chain.strikes[3][2], 0);
		expect(c.priorCount).toBe(0);
		expect(c.maxPriors).toHaveLength(0);
		expect(c.minDte).toBeNaN();
	});

	it('refuses a row without a ladder', () => {
		const c = chunk([T0 + 1]);
		expect(() => frameChain({ timestamp: T0 + 1, chunk: c, row: 0 }, 'SPX')).toThrow(
			/no GEX ladder/
		);
	});
});

describe('recordedSession', () => {
	const at = (iso: string) => Date.parse(iso);
	it('is today when the newest data is of New York’s date now', () => {
		expect(recordedSession(at('2026-11-27T15:04:40Z') / 1000, at('2026-11-27T16:00:00Z'))).toBe(
			'today'
		);
	});
	it('names the session when it is not today’s (a weekend, a replay of the simulated market)', () => {
		expect(recordedSession(at('2026-11-27T15:04:40Z') / 1000, at('2026-11-28T19:00:00Z'))).toBe(
			'Fri Nov 27'
		);
	});
	it('reads both in New York: 21:00 ET is still the close’s day though UTC is the next', () => {
		// 15:59 ET on Nov 27 (20:59 UTC); now 21:00 ET, 02:00 UTC on Nov 28.
		expect(recordedSession(at('2026-11-27T20:59:00Z') / 1000, at('2026-11-28T02:00:00Z'))).toBe(
			'today'
		);
		// 00:30 ET on Nov 28 (05:30 UTC): the next New York day.
		expect(recordedSession(at('2026-11-27T20:59:00Z') / 1000, at('2026-11-28T05:30:00Z'))).toBe(
			'Fri Nov 27'
		);
	});
});
