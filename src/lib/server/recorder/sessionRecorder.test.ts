/**
 * The session recorder on the update tap: frames filed by their own ET day and stream, polled
 * snapshots kept once per calculation, retention by days and bytes, and the backfill answer
 * (ranges, thinning, refusals) decoding back to the recorded updates.
 */
import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeBackfill } from '../../stream/backfill/backfill';
import { spxChain } from '../../wire/arbitraries.test-support';
import { encodeFrame } from '../../wire/encode';
import { answerBytes, backfillResponse, recordedDaysResponse } from './backfillResponse';
import { streamOfGroup } from '../../contract/feeds';
import { RecordKind } from './recordFile';
import { recorderRig } from './sessionRecorder.test-support';

const OPEN = 1795446000; // 2026-11-23 09:30 ET
const rig = recorderRig('gexdeck-recorder-');

function gexFrame(ts: number) {
	return encodeFrame('gex', { ...spxChain(20, ts % 97), timestamp: ts });
}

function publishGex(ts: number, group = 'SPX_classic_gex_full') {
	rig.tap.publish({ source: 'stream', group, receivedAt: Date.now(), any: gexFrame(ts) });
}

describe('SessionRecorder', () => {
	it('names streams after the group without its ticker', () => {
		expect(streamOfGroup('SPX_classic_gex_full')).toEqual({
			ticker: 'SPX',
			stream: 'classic_gex_full'
		});
		expect(streamOfGroup('SPX_spot')).toEqual({ ticker: 'SPX', stream: 'spot' });
		expect(streamOfGroup('nonsense')).toBeUndefined();
	});

	it('keeps a stream in time order: a frame older than the newest recorded is skipped', async () => {
		for (let s = 0; s < 10; s++) publishGex(OPEN + s);
		// The embedded service's after-close replay: the clock starts the same day again.
		for (let s = 0; s < 5; s++) publishGex(OPEN + s);
		publishGex(OPEN + 9); // the same second again is kept (a feed may send two)
		publishGex(OPEN + 10);
		// Another stream of the ticker has its own order.
		publishGex(OPEN + 2, 'SPX_classic_gex_zero');
		const decoded = decodeBackfill(
			await answerBytes(
				await backfillResponse(
					rig.recorder,
					'SPX',
					'classic_gex_full',
					new URLSearchParams('day=2026-11-23')
				)
			)
		);
		expect(decoded.updates.map((u) => u.timestamp)).toEqual([
			...Array.from({ length: 10 }, (_, i) => OPEN + i),
			OPEN + 9,
			OPEN + 10
		]);
		expect(rig.recorder.counters.skipped).toBe(5);
		const zero = decodeBackfill(
			await answerBytes(
				await backfillResponse(
					rig.recorder,
					'SPX',
					'classic_gex_zero',
					new URLSearchParams('day=2026-11-23')
				)
			)
		);
		expect(zero.updates.map((u) => u.timestamp)).toEqual([OPEN + 2]);
	});

	it('files frames by their data day and backfills them, decoded, in order', async () => {
		for (let s = 0; s < 30; s++) publishGex(OPEN + s);
		publishGex(OPEN + 86_400); // the next day
		expect(rig.recorder.days()).toEqual(['2026-11-23', '2026-11-24']);
		const answer = await backfillResponse(
			rig.recorder,
			'SPX',
			'classic_gex_full',
			new URLSearchParams('day=2026-11-23')
		);
		expect(answer.status).toBe(200);
		const decoded = decodeBackfill(await answerBytes(answer));
		expect(decoded.corrupt).toBe(0);
		expect(decoded.updates.map((u) => u.timestamp)).toEqual(
			Array.from({ length: 30 }, (_, i) => OPEN + i)
		);
		// Default day: the newest recorded.
		const newest = await backfillResponse(
			rig.recorder,
			'SPX',
			'classic_gex_full',
			new URLSearchParams()
		);
		expect(newest.headers['x-gexdeck-day']).toBe('2026-11-24');
		// Range and thinning.
		const q = new URLSearchParams(`day=2026-11-23&from=${OPEN + 10}&to=${OPEN + 29}&step=5`);
		const thinned = decodeBackfill(
			await answerBytes(await backfillResponse(rig.recorder, 'SPX', 'classic_gex_full', q))
		);
		expect(thinned.updates.map((u) => u.timestamp - OPEN)).toEqual([10, 15, 20, 25]);
		const days = JSON.parse(recordedDaysResponse(rig.recorder, 'SPX').body as string);
		expect(days.days.map((d: { day: string }) => d.day)).toEqual(['2026-11-24', '2026-11-23']);
		// The day being written is said (a view of it follows new records); an older one is not.
		expect(days.recording).toBe('2026-11-24');
		expect(newest.headers['x-gexdeck-recording']).toBe('1');
		expect(rig.recorder.recordingDay()).toBe('2026-11-24');
		const older = await backfillResponse(rig.recorder, 'SPX', 'classic_gex_full', q);
		expect(older.headers['x-gexdeck-recording']).toBeUndefined();
		// Two minutes without a record: no day is being recorded any more.
		expect(rig.recorder.recordingDay(Date.now() + 121_000)).toBeUndefined();
	});

	it('refuses bad requests clearly', async () => {
		publishGex(OPEN);
		const ask = async (t: string, s: string, q: string) =>
			await backfillResponse(rig.recorder, t, s, new URLSearchParams(q));
		expect((await ask('spx', 'classic_gex_full', '')).status).toBe(400);
		expect((await ask('SPX', '../etc', '')).status).toBe(400);
		expect((await ask('SPX', 'classic_gex_full', 'day=yesterday')).status).toBe(400);
		expect((await ask('SPX', 'classic_gex_full', 'source=evil')).status).toBe(400);
		expect((await ask('SPX', 'classic_gex_full', 'with=everything')).status).toBe(400);
		expect((await ask('SPX', 'classic_gex_full', 'source=service&with=spot')).status).toBe(200);
		expect((await ask('SPX', 'classic_gex_full', 'from=abc')).status).toBe(400);
		expect((await ask('SPX', 'classic_gex_full', 'step=0')).status).toBe(400);
		expect((await ask('SPX', 'classic_gex_full', 'day=2026-11-20')).status).toBe(404);
		expect((await ask('NDX', 'classic_gex_full', '')).status).toBe(404);
	});

	it('keeps a polled snapshot once per calculation, and backfills it as an update', async () => {
		const chain = spxChain(10, 1);
		for (const ts of [OPEN, OPEN, OPEN + 1]) {
			rig.tap.publish({
				source: 'snapshot',
				ticker: 'SPX',
				stream: 'classic_gex_zero',
				receivedAt: Date.now(),
				json: JSON.stringify({ ...chain, timestamp: ts })
			});
		}
		expect(rig.recorder.counters.skipped).toBe(1);
		const decoded = decodeBackfill(
			await answerBytes(
				await backfillResponse(rig.recorder, 'SPX', 'classic_gex_zero', new URLSearchParams())
			)
		);
		expect(decoded.updates.map((u) => [u.kind, u.timestamp])).toEqual([
			['gex', OPEN],
			['gex', OPEN + 1]
		]);
	});

	it('removes the oldest days beyond the retention, never the day being written', () => {
		rig.reopen({ retentionDays: 2 });
		for (const d of [0, 1, 4, 5]) publishGex(OPEN + d * 86_400);
		expect(rig.recorder.days()).toEqual(['2026-11-27', '2026-11-28']);
		rig.reopen({ maxBytes: 1 });
		publishGex(OPEN + 6 * 86_400);
		expect(rig.recorder.days()).toEqual(['2026-11-29']);
	});

	it('counts the records of a stream from its index', () => {
		expect(rig.recorder.count('2026-11-23', 'SPX', 'classic_gex_full')).toBe(0);
		for (let s = 0; s < 7; s++) publishGex(OPEN + s);
		expect(rig.recorder.count('2026-11-23', 'SPX', 'classic_gex_full')).toBe(7);
		expect(rig.recorder.count('2026-11-23', 'SPX', 'classic_gex_full')).toBe(
			rig.recorder.read('2026-11-23', 'SPX', 'classic_gex_full').length
		);
		expect(rig.recorder.count('../etc', 'SPX', 'classic_gex_full')).toBe(0);
	});

	it('takes new retention limits in place, keeping its counters and the day being written', () => {
		for (const d of [0, 1, 4]) publishGex(OPEN + d * 86_400);
		const before = rig.recorder.counters.records;
		expect(rig.recorder.days()).toHaveLength(3);
		expect(rig.recorder.retain({ retentionDays: 1, maxBytes: 5 * 1024 ** 3 })).toHaveLength(2);
		expect(rig.recorder.days()).toEqual(['2026-11-27']);
		expect(rig.recorder.counters.records).toBe(before);
		// Still attached and writing the same day file.
		publishGex(OPEN + 4 * 86_400 + 60);
		expect(rig.recorder.counters.records).toBe(before + 1);
		expect(rig.recorder.days()).toEqual(['2026-11-27']);
	});

	it('holds a realistic byte cap after every import: the oldest days go, the day being written stays', () => {
		const MB = 1024 ** 2;
		rig.reopen({ maxBytes: 64 * MB });
		publishGex(OPEN + 10 * 86_400); // 2026-12-03: the day being written
		const importDay = (day: string, mb: number) => {
			const draft = rig.recorder.beginImport(day, 'SPX', 'classic_gex_full')!;
			for (let i = 0; i < mb; i++)
				draft.append(RecordKind.SnapshotGzipJson, i, Buffer.alloc(MB - 44, i));
			rig.recorder.commitImport(day, draft);
		};
		importDay('2026-11-16', 20);
		importDay('2026-11-17', 20);
		importDay('2026-11-18', 20);
		expect(rig.recorder.days()).toEqual(['2026-11-16', '2026-11-17', '2026-11-18', '2026-12-03']);
		// 80 MB > 64 MB: the oldest goes, and only it (each day's own size comes off the total).
		importDay('2026-11-19', 20);
		expect(rig.recorder.days()).toEqual(['2026-11-17', '2026-11-18', '2026-11-19', '2026-12-03']);
		// A day bigger than the cap on its own: every other day goes but the one being written,
		// and the one just imported (its viewer is waiting for it).
		importDay('2026-11-20', 70);
		expect(rig.recorder.days()).toEqual(['2026-11-20', '2026-12-03']);
		expect(rig.recorder.read('2026-12-03', 'SPX', 'classic_gex_full')).toHaveLength(1);
	});

	it('holds the retention on a timer too, not only when the recorded day changes', async () => {
		for (const d of [0, 1, 2]) publishGex(OPEN + d * 86_400);
		// Three days on disk, a one-day limit, and nothing written: only the timer can apply it.
		rig.reopen({ retentionDays: 1, retentionEveryMs: 50 });
		expect(rig.recorder.days()).toHaveLength(3);
		await new Promise((r) => setTimeout(r, 300));
		expect(rig.recorder.days()).toEqual(['2026-11-25']);
	});

	it('leaves nothing of an import that is aborted, and never overwrites a stream', () => {
		publishGex(OPEN);
		expect(rig.recorder.beginImport('2026-11-23', 'SPX', 'classic_gex_full')).toBeUndefined();
		const draft = rig.recorder.beginImport('2026-11-20', 'SPX', 'classic_gex_full')!;
		draft.append(RecordKind.SnapshotGzipJson, 1, Buffer.from('x'));
		expect(rig.recorder.has('2026-11-20', 'SPX', 'classic_gex_full')).toBe(false);
		draft.abort();
		expect(readdirSync(rig.dir).sort()).toEqual(['2026-11-23']);
	});

	it('writes recordings 0600 in folders 0700, and tightens a recordings folder made 0755', () => {
		rig.recorder.close();
		const root = join(rig.dir, 'recordings');
		mkdirSync(root, { mode: 0o755 });
		chmodSync(root, 0o755);
		rig.reopen({ root });
		publishGex(OPEN);
		const mode = (p: string) => statSync(p).mode & 0o777;
		expect(mode(root)).toBe(0o700);
		expect(mode(join(root, '2026-11-23'))).toBe(0o700);
		expect(mode(join(root, '2026-11-23', 'SPX'))).toBe(0o700);
		expect(mode(join(root, '2026-11-23', 'SPX', 'classic_gex_full.rec'))).toBe(0o600);
		expect(mode(join(root, '2026-11-23', 'SPX', 'classic_gex_full.idx'))).toBe(0o600);
		const draft = rig.recorder.beginImport('2026-11-20', 'SPX', 'classic_gex_full')!;
		draft.append(RecordKind.SnapshotGzipJson, 1, Buffer.from('x'));
		rig.recorder.commitImport('2026-11-20', draft);
		expect(mode(join(root, '2026-11-20'))).toBe(0o700);
		expect(mode(join(root, '2026-11-20', 'SPX', 'classic_gex_full.rec'))).toBe(0o600);
	});
});
