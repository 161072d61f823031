import { describe, expect, it } from 'vitest';
import { ChunkBuilder, type RingChunk } from '../ring/ringChunk';
import { spxChain } from '../../wire/arbitraries.test-support';
import { columnarGex } from '../../wire/columnar';
import type { OverviewResult } from './overviewClient';
import { dayLinesOf, momentToRead, replayPoints, type DayLines } from './overviewTimeline';
import { framesOf } from './replayTimeline';

const GROUP = 'SPX_classic_gex_full';
const T0 = 1_767_277_800; // 2026-01-01 09:30:00 ET, a multiple of 60
const base = spxChain(10);

/** The ring's chunks of `seconds` recorded every second from `from` (a ladder every 5 s). */
function ring(from: number, seconds: number): RingChunk[] {
	const chunks: RingChunk[] = [];
	let b: ChunkBuilder | undefined;
	for (let ts = from; ts < from + seconds; ts++) {
		if (!b || !b.covers(ts)) {
			if (b) chunks.push(b.seal());
			b = new ChunkBuilder(GROUP, 'gex', ts);
		}
		const value = columnarGex({ ...base, ticker: 'SPX', timestamp: ts });
		b.append({ kind: 'gex', group: GROUP, ticker: 'SPX', timestamp: ts, value });
	}
	chunks.push(b!.seal());
	return chunks;
}

function linesAt(times: number[], day = '2026-01-01'): DayLines {
	const f = () => new Float32Array(times.length);
	return {
		day,
		times: Float64Array.from(times),
		spot: f(),
		zeroGamma: f(),
		majorPos: { vol: f(), oi: f() },
		majorNeg: { vol: f(), oi: f() },
		recording: false,
		bytes: 0
	};
}

describe('replayPoints', () => {
	it('is every overview step, then the held snapshots after the last step', () => {
		const lines = linesAt([0, 10, 20, 30].map((s) => T0 + s));
		const points = replayPoints(lines, framesOf(ring(T0 + 3, 60)));
		// Steps 0..30, then the ring's 5 s ladders after 30 s: 35, 40, ..., 60.
		expect(points.map((p) => p.timestamp - T0)).toEqual([0, 10, 20, 30, 35, 40, 45, 50, 55, 60]);
		expect(points.map((p) => p.column)).toEqual([0, 1, 2, 3, -1, -1, -1, -1, -1, -1]);
		// A step the ring holds a snapshot of at that exact time is not read from the server.
		// The ring (from 09:30:03) holds ladders at 10, 20 and 30 s: only 09:30:00 is read.
		expect(points.map((p) => momentToRead(p))).toEqual([T0, ...Array(9).fill(undefined)]);
		expect(points[2].frame?.timestamp).toBe(T0 + 20);
	});

	it('is the ring alone without an overview, and the overview alone without frames', () => {
		expect(replayPoints(undefined, framesOf(ring(T0, 12))).map((p) => p.timestamp - T0)).toEqual([
			0, 5, 10
		]);
		const alone = replayPoints(linesAt([T0, T0 + 10]), []);
		expect(alone.map((p) => [p.timestamp, p.column, p.frame])).toEqual([
			[T0, 0, undefined],
			[T0 + 10, 1, undefined]
		]);
		expect(replayPoints(undefined, [])).toEqual([]);
		expect(momentToRead(undefined)).toBeUndefined();
	});

	it("keeps the newest session: yesterday's overview gives way to today's ring", () => {
		const yesterday = linesAt([T0 - 86_400, T0 - 86_390], '2025-12-31');
		const points = replayPoints(yesterday, framesOf(ring(T0, 6)));
		expect(points.map((p) => p.timestamp)).toEqual([T0, T0 + 5]);
		// Outside hours with an empty ring the last session's overview is the timeline.
		expect(replayPoints(yesterday, []).map((p) => p.column)).toEqual([0, 1]);
	});
});

describe('dayLinesOf', () => {
	const answer = (metric: 'vol' | 'oi', day = '2026-01-01', n = 2): OverviewResult => ({
		header: {
			ticker: 'SPX',
			stream: 'classic_gex_full',
			day,
			metric,
			step: 10,
			columns: n,
			strikes: []
		},
		times: Float64Array.from({ length: n }, (_, i) => T0 + i * 10),
		spot: new Float32Array(n).fill(7000),
		zeroGamma: new Float32Array(n).fill(6990),
		majorPos: new Float32Array(n).fill(metric === 'vol' ? 7050 : 7100),
		majorNeg: new Float32Array(n).fill(metric === 'vol' ? 6950 : 6900),
		values: new Float32Array(0),
		bytes: 100,
		maxAbs: 0,
		recording: metric === 'vol'
	});

	it('puts the two metrics of one day side by side', () => {
		const lines = dayLinesOf(answer('vol'), answer('oi'))!;
		expect(lines.day).toBe('2026-01-01');
		expect(Array.from(lines.times)).toEqual([T0, T0 + 10]);
		expect(lines.majorPos.vol[0]).toBe(7050);
		expect(lines.majorPos.oi[0]).toBe(7100);
		expect(lines.majorNeg.vol[1]).toBe(6950);
		expect(lines.majorNeg.oi[1]).toBe(6900);
		expect(lines.recording).toBe(true);
		expect(lines.bytes).toBe(200);
	});

	it('is undefined when an answer is missing, empty, or the two disagree', () => {
		expect(dayLinesOf(undefined, answer('oi'))).toBeUndefined();
		expect(dayLinesOf(answer('vol'), undefined)).toBeUndefined();
		expect(
			dayLinesOf(answer('vol', '2026-01-01', 0), answer('oi', '2026-01-01', 0))
		).toBeUndefined();
		expect(dayLinesOf(answer('vol'), answer('oi', '2026-01-02'))).toBeUndefined();
		// The day grew between the two answers: read again the raw way rather than misalign.
		expect(dayLinesOf(answer('vol', '2026-01-01', 3), answer('oi'))).toBeUndefined();
	});
});
