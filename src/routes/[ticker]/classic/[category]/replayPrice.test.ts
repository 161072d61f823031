import { describe, expect, it } from 'vitest';
import { PriceSamples } from '$lib/charts/price/priceSeries';
import { frameChain, framesOf } from '$lib/stream/backfill/replayTimeline';
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
	const frames = framesOf(recorded());

	it('takes each frame of the replay with its spot, zero gamma and the majors of the metric', () => {
		expect(frames).toHaveLength(36);
		for (const metric of ['vol', 'oi'] as const) {
			const price = priceOfReplay(frames, metric);
			expect(price.length).toBe(frames.length);
			frames.forEach((f, i) => {
				const chain = frameChain(f, 'SPX');
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
