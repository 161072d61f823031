import { describe, expect, it } from 'vitest';
import { fetchDaySeed } from './daySeed';
import {
	SEED_DAY,
	SEED_OPEN,
	SEED_STEPS,
	seedAnswers,
	seedChainAt,
	seedFetch,
	seedLast
} from './daySeed.test-support';

describe("a past day's seed (the page's load, daySeed.ts)", () => {
	it("reads both metrics' lines and the last step's chain from gzip answers passed on as sent", async () => {
		const { fetch, asked } = seedFetch(seedAnswers());
		const seed = await fetchDaySeed(fetch, 'SPX', 'classic_gex_full', SEED_DAY);
		expect(asked).toHaveLength(3);
		expect(asked).toEqual([
			`/history/SPX/classic_gex_full/overview?metric=vol&day=${SEED_DAY}&cells=none&ready=1`,
			`/history/SPX/classic_gex_full/overview?metric=oi&day=${SEED_DAY}&cells=none&ready=1`,
			`/history/SPX/classic_gex_full/moment?day=${SEED_DAY}`
		]);
		expect(seed?.vol.header).toMatchObject({ day: SEED_DAY, metric: 'vol', columns: SEED_STEPS });
		expect(seed?.oi.header.metric).toBe('oi');
		expect(Array.from(seed!.vol.times)).toEqual(
			Array.from({ length: SEED_STEPS }, (_, i) => SEED_OPEN + i * 10)
		);
		expect(seed?.vol.last).toBe(seedLast);
		expect(seed?.moment.at).toBe(seedLast);
		expect(Array.from(seed!.moment.chain.gexVol)).toEqual(Array.from(seedChainAt(seedLast).gexVol));
	});

	it('opens a shared moment at the step the replay shows for it (nearest, ties to the earlier)', async () => {
		for (const [at, step] of [
			[SEED_OPEN + 42, SEED_OPEN + 40],
			[SEED_OPEN + 45, SEED_OPEN + 40],
			[SEED_OPEN + 46, SEED_OPEN + 50],
			[SEED_OPEN - 500, SEED_OPEN],
			[seedLast + 500, seedLast]
		]) {
			const { fetch, asked } = seedFetch(seedAnswers({ step }));
			const seed = await fetchDaySeed(fetch, 'SPX', 'classic_gex_full', SEED_DAY, at);
			expect(asked[2]).toMatch(new RegExp(`&at=${step}$`));
			expect(seed?.at).toBe(at);
			expect(seed?.moment.at).toBe(step);
		}
		// The moment answered is another one than asked: no seed.
		const wrong = seedFetch(seedAnswers({ step: SEED_OPEN + 40, momentAt: SEED_OPEN + 50 }));
		expect(
			await fetchDaySeed(wrong.fetch, 'SPX', 'classic_gex_full', SEED_DAY, SEED_OPEN + 42)
		).toBeUndefined();
	});

	it('is none when a part is missing: the view then reads the day as it always did', async () => {
		for (const missing of [0, 1, 2]) {
			const answers = seedAnswers();
			const urls = [...answers.keys()];
			answers.delete(urls[missing]);
			const { fetch, asked } = seedFetch(answers);
			expect(await fetchDaySeed(fetch, 'SPX', 'classic_gex_full', SEED_DAY)).toBeUndefined();
			// Lines not built yet (ready=1: 404): the moment, whose answer would build them, is not asked.
			if (missing < 2) expect(asked).not.toContain(urls[2]);
		}
	});

	it("is none when the moment is not the lines' last step, or the lines are another day's", async () => {
		const early = seedFetch(seedAnswers({ momentAt: SEED_OPEN }));
		expect(await fetchDaySeed(early.fetch, 'SPX', 'classic_gex_full', SEED_DAY)).toBeUndefined();
		const other = seedFetch(
			new Map([...seedAnswers()].map(([url, r]) => [url.replace(SEED_DAY, '2026-11-24'), r]))
		);
		expect(
			await fetchDaySeed(other.fetch, 'SPX', 'classic_gex_full', '2026-11-24')
		).toBeUndefined();
	});

	it('is none when an answer is damaged or the fetch fails', async () => {
		const answers = seedAnswers();
		const [vol] = answers.keys();
		answers.set(vol, () => new Response(new Uint8Array([0x1f, 0x8b, 1, 2, 3])));
		expect(
			await fetchDaySeed(seedFetch(answers).fetch, 'SPX', 'classic_gex_full', SEED_DAY)
		).toBeUndefined();
		const failing = (async () => {
			throw new TypeError('network down');
		}) as typeof globalThis.fetch;
		expect(await fetchDaySeed(failing, 'SPX', 'classic_gex_full', SEED_DAY)).toBeUndefined();
	});
});
