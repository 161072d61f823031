import 'fake-indexeddb/auto';
import { flushSync } from 'svelte';
import { describe, expect, it } from 'vitest';
import { StreamRing } from '$lib/stream';
import type { BackfillQuery, BackfillResult } from '$lib/stream/backfill/backfillClient';
import type { DaySeed } from '$lib/stream/backfill/daySeed';
import type { OverviewResult } from '$lib/stream/backfill/overviewClient';
import { spxChain } from '$lib/wire/arbitraries.test-support';
import { columnarGex } from '$lib/wire/columnar';
import { priceOfReplay } from './replayPrice';
import { SessionReplay, type SessionReplayOptions } from './sessionReplay.svelte';

/** Classic's replay of a day the server has an overview of (issue 26). */

const GROUP = 'SPX_classic_gex_full';
const DAY = '2026-01-01';
const T0 = 1_767_277_800; // 2026-01-01 09:30:00 ET
const STEPS = 30; // five minutes of 10 s steps
const chainAt = (ts: number) =>
	columnarGex({ ...spxChain(30), ticker: 'SPX', timestamp: ts, spot: 7000 + ts - T0 });

async function until(ok: () => boolean, ms = 3_000): Promise<void> {
	const end = Date.now() + ms;
	for (;;) {
		flushSync();
		if (ok()) return;
		if (Date.now() > end) throw new Error('condition not met in time');
		await new Promise((r) => setTimeout(r, 10));
	}
}

/** The server: the day's overview lines (both metrics), and /history answering any query. */
function server(withOverview = true) {
	const asked: BackfillQuery[] = [];
	const overviews: string[] = [];
	const overview = (async (_t: string, _s: string, day: string | null, metric: 'vol' | 'oi') => {
		overviews.push(`${day}/${metric}`);
		if (!withOverview) return undefined;
		const times = Float64Array.from({ length: STEPS }, (_, i) => T0 + i * 10);
		const lines = (f: (t: number) => number) => Float32Array.from(times, f);
		return {
			header: {
				ticker: 'SPX',
				stream: 'classic_gex_full',
				day: DAY,
				metric,
				step: 10,
				columns: STEPS,
				strikes: []
			},
			times,
			spot: lines((t) => 7000 + t - T0),
			zeroGamma: lines(() => 6990),
			majorPos: lines(() => (metric === 'vol' ? 7050 : 7100)),
			majorNeg: lines(() => (metric === 'vol' ? 6950 : 6900)),
			values: new Float32Array(0),
			bytes: STEPS * 28,
			maxAbs: 0,
			recording: false
		} satisfies OverviewResult;
	}) as SessionReplayOptions['overview'];
	const backfill = (async (_t: string, _s: string, q: BackfillQuery = {}) => {
		asked.push(q);
		const from = q.from ?? T0;
		const to = q.to ?? T0 + (STEPS - 1) * 10;
		const updates = [];
		for (let ts = from; ts <= to; ts += q.step ?? 1) {
			if ((ts - T0) % 10 === 0) {
				updates.push({
					kind: 'gex' as const,
					group: GROUP,
					ticker: 'SPX',
					timestamp: ts,
					value: chainAt(ts)
				});
			}
		}
		return {
			id: 0,
			ok: true,
			updates,
			corrupt: 0,
			bytes: 0,
			fetchMs: 0,
			decodeMs: 0,
			day: DAY
		} as BackfillResult;
	}) as SessionReplayOptions['backfill'];
	return { asked, overviews, overview, backfill };
}

function replayOf(options: Partial<SessionReplayOptions>) {
	let replay!: SessionReplay;
	const stop = $effect.root(() => {
		replay = new SessionReplay({
			group: () => GROUP,
			ticker: () => 'SPX',
			stream: () => 'classic_gex_full',
			polled: () => undefined,
			open: () => StreamRing.open({ dbName: `replay-overview-${Math.random()}` }),
			...options
		});
	});
	return { replay, stop };
}

describe('SessionReplay from the day overview', () => {
	it("draws a past day's moments from the overview and reads one record at each moment shown", async () => {
		const s = server();
		const { replay, stop } = replayOf({
			day: () => DAY,
			overview: s.overview,
			backfill: s.backfill
		});
		// The day opens at its last step: that one record is read, never the day.
		await until(() => replay.chain !== undefined);
		expect(s.overviews).toEqual([`${DAY}/vol`, `${DAY}/oi`]);
		expect(replay.frames).toHaveLength(STEPS);
		expect(replay.range).toEqual({ from: T0, to: T0 + 290, count: STEPS });
		expect(replay.backfilled).toBe(STEPS);
		expect(replay.chain?.timestamp).toBe(T0 + 290);
		expect(s.asked).toEqual([{ day: DAY, from: T0 + 290, to: T0 + 290 }]);

		replay.scrubTo(4);
		await until(() => replay.chain?.timestamp === T0 + 40);
		expect(replay.chain?.spot).toBe(7040);
		expect(replay.chain?.strikes).toHaveLength(30);
		expect(s.asked.at(-1)).toEqual({ day: DAY, from: T0 + 40, to: T0 + 40 });
		// Back to a moment read before: from the cache.
		replay.scrubTo(29);
		await until(() => replay.chain?.timestamp === T0 + 290);
		expect(s.asked).toHaveLength(2);

		// The price chart beside it: every step from the lines, the majors of the metric asked.
		const price = priceOfReplay(replay.frames, 'oi', undefined, replay.lines);
		expect(price.length).toBe(STEPS);
		expect(price.spot[4]).toBe(7040);
		expect(price.majorPos[4]).toBe(7100);
		expect(priceOfReplay(replay.frames, 'vol', undefined, replay.lines).majorNeg[0]).toBe(6950);
		stop();
	});

	it("today's session from the overview: live at the edge, one record at a scrub", async () => {
		const s = server();
		const { replay, stop } = replayOf({ overview: s.overview, backfill: s.backfill });
		await until(() => replay.frames.length === STEPS);
		expect(s.overviews).toEqual(['null/vol', 'null/oi']);
		expect(replay.replaying).toBe(false);
		expect(replay.position).toBe(STEPS);
		expect(s.asked).toEqual([]);
		replay.scrubTo(10);
		await until(() => replay.chain?.timestamp === T0 + 100);
		expect(s.asked).toEqual([{ day: DAY, from: T0 + 100, to: T0 + 100 }]);
		replay.goLive();
		flushSync();
		expect(replay.chain).toBeUndefined();
		stop();
	});

	it("draws a seeded day (the page's load read it) from its first render and fetches nothing for it", async () => {
		const s = server();
		const lines = await Promise.all([
			s.overview!('SPX', 'classic_gex_full', DAY, 'vol'),
			s.overview!('SPX', 'classic_gex_full', DAY, 'oi')
		]);
		s.overviews.length = 0;
		const last = T0 + (STEPS - 1) * 10;
		const seed: DaySeed = {
			ticker: 'SPX',
			stream: 'classic_gex_full',
			day: DAY,
			vol: lines[0]!,
			oi: lines[1]!,
			at: null,
			moment: { at: last, chain: chainAt(last) }
		};
		const { replay, stop } = replayOf({
			day: () => DAY,
			overview: s.overview,
			backfill: s.backfill,
			seed: () => seed
		});
		// Before any effect ran (what the server renders, and what hydration keeps).
		expect(replay.frames).toHaveLength(STEPS);
		expect(replay.chain).toBe(seed.moment.chain);
		expect(replay.backfilled).toBe(STEPS);
		// The effects ran: still that chain, and neither the lines nor its record fetched.
		flushSync();
		expect(replay.chain).toBe(seed.moment.chain);
		await new Promise((r) => setTimeout(r, 50));
		flushSync();
		expect(s.overviews).toEqual([]);
		expect(s.asked).toEqual([]);
		// Another moment: that one record, read as for any day.
		replay.scrubTo(4);
		await until(() => replay.chain?.timestamp === T0 + 40);
		expect(s.asked).toEqual([{ day: DAY, from: T0 + 40, to: T0 + 40 }]);
		stop();

		// A shared moment: the step nearest it, drawn from the first render too.
		const shared = replayOf({
			day: () => DAY,
			overview: s.overview,
			backfill: s.backfill,
			seed: () => ({ ...seed, at: T0 + 42, moment: { at: T0 + 40, chain: chainAt(T0 + 40) } })
		});
		expect(shared.replay.at).toBe(T0 + 42);
		expect(shared.replay.frame?.timestamp).toBe(T0 + 40);
		expect(shared.replay.chain?.timestamp).toBe(T0 + 40);
		flushSync();
		await new Promise((r) => setTimeout(r, 50));
		expect(s.asked).toHaveLength(1);
		shared.stop();

		// A seed of another day is not this view's: the day is fetched.
		const other = replayOf({
			day: () => '2026-01-02',
			overview: s.overview,
			backfill: s.backfill,
			seed: () => seed
		});
		expect(other.replay.chain).toBeUndefined();
		await until(() => s.overviews.length === 2);
		expect(s.overviews).toEqual(['2026-01-02/vol', '2026-01-02/oi']);
		other.stop();
	});

	it('reads the day the raw way when the server has no overview of it', async () => {
		const s = server(false);
		const { replay, stop } = replayOf({
			day: () => DAY,
			overview: s.overview,
			backfill: s.backfill
		});
		await until(() => replay.backfilled !== null && replay.chain !== undefined);
		expect(replay.lines).toBeUndefined();
		expect(s.asked).toEqual([{ day: DAY, step: 5, fromService: true }]);
		expect(replay.frames).toHaveLength(STEPS);
		expect(replay.chain?.timestamp).toBe(T0 + 290);
		stop();
	});
});
