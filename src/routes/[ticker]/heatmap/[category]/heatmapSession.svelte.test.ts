/**
 * HeatmapSession over a fake recording server: the grid is drawn while the day decodes (each
 * batch adds its columns), live chains that arrive meanwhile join after the recorded columns,
 * and a failed or empty read keeps what it has.
 */
import { describe, expect, it, vi } from 'vitest';
import { decodeOverviewBody, encodeOverviewBody } from '$lib/relay/overviewBody';
import type { OverviewResult } from '$lib/stream/backfill/overviewClient';
import type { BackfillResult } from '$lib/stream/backfill/backfillClient';
import { BackfillError } from '$lib/stream/backfill/backfillClient';
import type { StreamUpdate } from '$lib/stream/transport/updates';
import type { ClassicChain } from '$lib/charts/histogram/classicChain';
import { columnarGex } from '$lib/wire/columnar';
import { spxChain } from '$lib/wire/arbitraries.test-support';
import { HeatmapSession } from './heatmapSession.svelte';

const OPEN = 1795532400; // 2026-11-24 09:30 ET
const base = spxChain(12);
const chainAt = (ts: number): ClassicChain => ({ ...base, ticker: 'SPX', timestamp: ts });
const updatesOf = (from: number, count: number): StreamUpdate[] =>
	Array.from({ length: count }, (_, i) => ({
		kind: 'gex',
		group: 'SPX_classic_gex_full',
		ticker: 'SPX',
		timestamp: from + i * 5,
		value: columnarGex(chainAt(from + i * 5))
	}));
const served = (updates: StreamUpdate[] = []): BackfillResult => ({
	id: 0,
	ok: true,
	updates,
	corrupt: 0,
	bytes: 100,
	fetchMs: 0,
	decodeMs: 0,
	day: '2026-11-24'
});

describe('HeatmapSession', () => {
	it('draws the day as it decodes, then adds the live columns that came meanwhile', async () => {
		let release!: () => void;
		const released = new Promise<void>((r) => (release = r));
		const session = new HeatmapSession(
			'SPX',
			'gex_full',
			'vol',
			null,
			async (_t, _s, _q, o = {}) => {
				o.onBatch?.(updatesOf(OPEN, 10));
				await released;
				o.onBatch?.(updatesOf(OPEN + 50, 10));
				return served();
			}
		);
		const loading = session.load(new AbortController().signal);
		// The first batch is drawn while the rest is still on its way.
		await vi.waitFor(() => expect(session.grid.length).toBe(10));
		expect(session.phase).toBe('loading');
		expect(session.day).toBe('2026-11-24');
		const revision = session.revision;
		// A live calculation arrives before the recording is complete: it waits for it.
		session.addLive(columnarGex(chainAt(OPEN + 200)));
		expect(session.grid.length).toBe(10);
		release();
		await loading;
		expect(session.phase).toBe('ready');
		expect(session.revision).toBeGreaterThan(revision);
		expect(Array.from(session.grid.times.subarray(0, session.grid.length))).toEqual([
			...Array.from({ length: 20 }, (_, i) => OPEN + i * 5),
			OPEN + 200
		]);
		// Live columns after the load append at once.
		session.addLive(columnarGex(chainAt(OPEN + 201)));
		expect(session.grid.length).toBe(22);
	});

	it('keeps the live columns when nothing was recorded, and what a failed read delivered', async () => {
		const empty = new HeatmapSession('SPX', 'gex_full', 'vol', null, async () => {
			throw new BackfillError(404, 'nothing recorded');
		});
		const pending = empty.load(new AbortController().signal);
		empty.addLive(columnarGex(chainAt(OPEN)));
		await pending;
		expect(empty.phase).toBe('ready');
		expect(empty.grid.length).toBe(1);

		const failing = new HeatmapSession(
			'SPX',
			'gex_full',
			'vol',
			null,
			async (_t, _s, _q, o = {}) => {
				o.onBatch?.(updatesOf(OPEN, 4));
				throw new BackfillError(0, 'connection lost');
			}
		);
		await failing.load(new AbortController().signal);
		expect(failing.phase).toBe('error');
		expect(failing.error).toBe('connection lost');
		expect(failing.grid.length).toBe(4);
	});

	it('draws the whole day from its overview, reads no raw record for it, and follows a picked day being recorded', async () => {
		const columns = Array.from({ length: 30 }, (_, i) => {
			const g = columnarGex(chainAt(OPEN + i * 10));
			return { ...g, majorPos: g.majorPosVol, majorNeg: g.majorNegVol, values: g.gexVol };
		});
		const body = encodeOverviewBody(
			{ ticker: 'SPX', stream: 'classic_gex_full', day: '2026-11-24', metric: 'vol', step: 10 },
			columns
		);
		const overview = (recording: boolean): OverviewResult => ({
			...decodeOverviewBody(body),
			bytes: body.length,
			recording,
			last: OPEN + 290
		});
		const asked: (number | undefined)[] = [];
		const read = async (_t: string, _s: string, q: { from?: number } = {}) => {
			asked.push(q.from);
			return { ...served(updatesOf(OPEN + 291, 2)), recording: false };
		};
		const today = new HeatmapSession('SPX', 'gex_full', 'vol', null, read, async () =>
			overview(true)
		);
		await today.load(new AbortController().signal);
		expect(today.phase).toBe('ready');
		expect(today.grid.length).toBe(30);
		expect(today.grid.times[29]).toBe(OPEN + 290);
		expect(today.grid.strikes.length).toBe(12);
		expect(asked).toEqual([]);
		today.addLive(columnarGex(chainAt(OPEN + 291)));
		expect(today.grid.length).toBe(31);

		vi.useFakeTimers();
		try {
			const picked = new HeatmapSession('SPX', 'gex_full', 'vol', '2026-11-24', read, async () =>
				overview(true)
			);
			await picked.load(new AbortController().signal);
			expect(picked.grid.length).toBe(30);
			await vi.advanceTimersByTimeAsync(5_000);
			// The raw records after the overview's last step, not the day again.
			expect(asked).toEqual([OPEN + 291]);
			expect(picked.grid.length).toBe(32);
		} finally {
			vi.useRealTimers();
		}
	});
});
