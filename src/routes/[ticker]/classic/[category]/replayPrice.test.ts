import { describe, expect, it } from 'vitest';
import { PriceSamples } from '$lib/charts/price/priceSeries';
import { frameChain, framesOf } from '$lib/stream/backfill/replayTimeline';
import { replayPoints, type DayLines } from '$lib/stream/backfill/overviewTimeline';
import { ChunkBuilder, type RingChunk } from '$lib/stream/ring/ringChunk';
import { spxChain } from '$lib/wire/arbitraries.test-support';
import { columnarGex, type ColumnarGex } from '$lib/wire/columnar';
import { priceOfReplay } from './replayPrice';

const GROUP = 'SPX_classic_gex_full';
const T0 = 1_767_277_800; // 09:30:00 ET, a multiple of 60
const base = spxChain(30);
const chainAt = (ts: number, i = ts - T0): ColumnarGex =>
	columnarGex({
		...base,
		ticker: 'SPX',
		timestamp: ts,
		spot: 7000 + i,
		zero_gamma: 6990 + (i % 7),
		major_pos_vol: 7050 + (i % 3) * 5,
		major_pos_oi: 7100,
		major_neg_vol: 6950 - (i % 4) * 5,
		major_neg_oi: 6900
	});

/** Three minutes recorded every second, as the ring keeps them (a ladder every 5 s). */
function recorded(seconds = 180): RingChunk[] {
	const chunks: RingChunk[] = [];
	let b: ChunkBuilder | undefined;
	for (let ts = T0; ts < T0 + seconds; ts++) {
		if (!b || !b.covers(ts)) {
			if (b) chunks.push(b.seal());
			b = new ChunkBuilder(GROUP, 'gex', ts);
		}
		b.append({ kind: 'gex', group: GROUP, ticker: 'SPX', timestamp: ts, value: chainAt(ts) });
	}
	chunks.push(b!.seal());
	return chunks;
}

describe('priceOfReplay', () => {
	const frames = replayPoints(undefined, framesOf(recorded()));

	it('takes each frame of the replay with its spot, zero gamma and the majors of the metric', () => {
		expect(frames).toHaveLength(36);
		for (const metric of ['vol', 'oi'] as const) {
			const price = priceOfReplay(frames, metric);
			expect(price.length).toBe(frames.length);
			frames.forEach((f, i) => {
				const chain = frameChain(f.frame!, 'SPX');
				expect(price.times[i]).toBe(f.timestamp);
				expect(price.spot[i]).toBe(chain.spot);
				expect(price.zeroGamma[i]).toBe(chain.zeroGamma);
				expect(price.majorPos[i]).toBe(metric === 'vol' ? chain.majorPosVol : chain.majorPosOi);
				expect(price.majorNeg[i]).toBe(metric === 'vol' ? chain.majorNegVol : chain.majorNegOi);
			});
		}
		// Not one value for all: the majors by volume move through the recording.
		expect(new Set(priceOfReplay(frames, 'vol').majorPos).size).toBe(3);
	});

	it('puts a newer live chain after the recording and ignores an older one', () => {
		const newer = priceOfReplay(frames, 'vol', chainAt(T0 + 200));
		expect(newer.length).toBe(37);
		expect(newer.times[36]).toBe(T0 + 200);
		expect(newer.spot[36]).toBe(7200);
		expect(priceOfReplay(frames, 'vol', chainAt(T0 + 100)).length).toBe(36);
		expect(priceOfReplay([], 'oi', chainAt(T0)).majorPos[0]).toBe(7100);
	});

	it('starts afresh with a live chain of a newer session', () => {
		const nextDay = priceOfReplay(frames, 'vol', chainAt(T0 + 86_400, 0));
		expect(nextDay.length).toBe(1);
		expect(nextDay.times[0]).toBe(T0 + 86_400);
	});
});

describe('priceOfReplay with the day overview', () => {
	// The overview's lines for the first minute (10 s steps), values of their own so a sample
	// read from a chunk instead would not match; the ring's frames after it.
	const steps = [0, 10, 20, 30, 40, 50].map((s) => T0 + s);
	const f32 = (f: (i: number) => number) => Float32Array.from(steps, (_, i) => f(i));
	const lines: DayLines = {
		day: '2026-01-01',
		times: Float64Array.from(steps),
		spot: f32((i) => 6000 + i),
		zeroGamma: f32((i) => 5990 + i),
		majorPos: { vol: f32(() => 6100), oi: f32(() => 6200) },
		majorNeg: { vol: f32(() => 5900), oi: f32(() => 5800) },
		recording: false,
		bytes: 0
	};
	const points = replayPoints(lines, framesOf(recorded()));

	it('reads an overview moment from the lines and a later snapshot from its chunk', () => {
		// Six overview steps, then the ring's frames after 09:30:50 (55 s .. 175 s, every 5 s).
		expect(points).toHaveLength(6 + 25);
		for (const metric of ['vol', 'oi'] as const) {
			const price = priceOfReplay(points, metric, undefined, lines);
			expect(price.length).toBe(points.length);
			expect(Array.from(price.spot.slice(0, 6))).toEqual([6000, 6001, 6002, 6003, 6004, 6005]);
			expect(price.majorPos[0]).toBe(metric === 'vol' ? 6100 : 6200);
			expect(price.majorNeg[5]).toBe(metric === 'vol' ? 5900 : 5800);
			const chain = frameChain(points[6].frame!, 'SPX');
			expect(price.times[6]).toBe(T0 + 55);
			expect(price.spot[6]).toBe(chain.spot);
			expect(price.majorPos[6]).toBe(metric === 'vol' ? chain.majorPosVol : chain.majorPosOi);
		}
	});
});

describe('PriceSamples', () => {
	const s = (timestamp: number) => ({
		timestamp,
		spot: timestamp,
		zeroGamma: 0,
		majorPos: 0,
		majorNeg: 0
	});

	it('finds the last sample at or before a time and drops repeated times', () => {
		const p = new PriceSamples([s(10), s(20), s(20), s(15), s(30)]);
		expect(Array.from(p.times)).toEqual([10, 20, 30]);
		expect(p.length).toBe(3);
		expect([5, 10, 19, 20, 29, 30, 99].map((t) => p.columnAt(t))).toEqual([-1, 0, 0, 1, 1, 2, 2]);
	});
});
