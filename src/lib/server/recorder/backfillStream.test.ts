/**
 * The streamed /history answer over a real socket (the same sendAnswer the integration tests'
 * server uses): for random recordings and queries its body is byte for byte what the
 * synchronous answer built from read() was (the records of both streams sorted by arrival,
 * snapshots gunzipped, encodeBackfill of all of them at once), with the same headers; a file
 * appended to while it is served is answered as it was when the request came; a client that
 * goes away mid-body stops the reads and leaves no descriptor open; bad requests keep their
 * statuses and messages.
 */
import fc from 'fast-check';
import {
	mkdtempSync,
	readdirSync,
	readFileSync,
	readlinkSync,
	rmSync,
	statSync,
	writeFileSync
} from 'node:fs';
import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitBackfill } from '../../relay/backfillBody';
import { backfillResponse, sendAnswer } from './backfillResponse';
import { synchronousBackfill } from './backfillSync.test-support';
import { RecordFile, RecordKind } from './recordFile';
import { SessionRecorder } from './sessionRecorder';

const DAY = '2026-11-23';
const OPEN = 1795446000;
let recorder: SessionRecorder | undefined;
let server: Server;
let origin: string;
/** Server responses that closed before their body was whole (a client gone). */
let cut = 0;
/** Files Node had to close on garbage collection: a reader that forgot to close its own. */
let closedByGc = 0;
const onWarning = (w: Error) => {
	if (/on garbage collection/.test(w.message)) closedByGc++;
};

beforeAll(async () => {
	process.on('warning', onWarning);
	server = createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://x');
		const m = /^\/history\/([^/]+)\/([^/]+)$/.exec(url.pathname);
		if (!m || !recorder) return void res.writeHead(404).end();
		res.on('close', () => {
			if (!res.writableFinished) cut++;
		});
		void backfillResponse(recorder, m[1], m[2], url.searchParams).then((a) => sendAnswer(a, res));
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
	process.off('warning', onWarning);
	await new Promise<void>((r) => server.close(() => r()));
});

function withRoot<T>(run: (root: string) => Promise<T>): Promise<T> {
	const root = mkdtempSync(join(tmpdir(), 'gexdeck-bfstream-'));
	return run(root).finally(() => {
		recorder?.close();
		recorder = undefined;
		rmSync(root, { recursive: true, force: true });
	});
}

function payload(seed: number, size: number): Uint8Array {
	const p = new Uint8Array(size);
	for (let j = 0; j < size; j++) p[j] = (seed * 131 + j * 7 + (j >> 5)) & 0xff;
	return p;
}

/** A recorded stream: arrivals never go back (the recorder's stamps), data times may. */
const recordArb = fc.record({
	spot: fc.boolean(),
	snapshot: fc.integer({ min: 0, max: 5 }).map((k) => k === 0),
	dt: fc.integer({ min: -3, max: 6 }),
	// Arrival gaps of 0 make the two streams tie (the requested stream goes first).
	gap: fc.constantFrom(0, 0, 1, 250, 1000),
	// Mostly small, sometimes longer than a read chunk (256 KB): a record cut by chunk ends.
	size: fc.oneof(
		{ weight: 8, arbitrary: fc.integer({ min: 0, max: 3000 }) },
		{ weight: 1, arbitrary: fc.integer({ min: 200_000, max: 600_000 }) }
	)
});

function write(root: string, records: Rec[]): void {
	const files = {
		main: RecordFile.open(join(root, DAY, 'SPX', 'classic_gex_full.rec')),
		spot: RecordFile.open(join(root, DAY, 'SPX', 'spot.rec'))
	};
	let arrival = OPEN * 1000;
	const time = { main: OPEN, spot: OPEN };
	records.forEach((r, i) => {
		const which = r.spot ? 'spot' : 'main';
		arrival += r.gap;
		time[which] = Math.max(OPEN, time[which] + r.dt);
		const body = payload(i, r.size);
		files[which].append(
			r.snapshot ? RecordKind.SnapshotGzipJson : RecordKind.StreamAny,
			time[which],
			arrival,
			r.snapshot ? gzipSync(body) : body
		);
	});
	files.main.close();
	files.spot.close();
}
type Rec = { spot: boolean; snapshot: boolean; dt: number; gap: number; size: number };

async function fetchBody(path: string) {
	const res = await fetch(origin + path);
	return { res, body: new Uint8Array(await res.arrayBuffer()) };
}

/** Descriptors this process holds on recorded data files under `root` (the recorder's own too). */
const openFds = (root: string) =>
	readdirSync('/proc/self/fd').filter((fd) => {
		try {
			const target = readlinkSync(`/proc/self/fd/${fd}`);
			return target.startsWith(root) && target.endsWith('.rec');
		} catch (err) {
			// Closed meanwhile (the listing's own descriptor).
			if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
			throw err;
		}
	}).length;

describe('the streamed backfill answer', () => {
	it('is byte for byte the synchronous answer, headers included', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(recordArb, { maxLength: 60 }),
				fc.option(fc.integer({ min: -2, max: 40 }), { nil: undefined }),
				fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
				fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
				fc.boolean(),
				// Sometimes a byte of the data file goes bad after it was indexed (a disk fault).
				fc.option(fc.nat(), { nil: undefined, freq: 4 }),
				(records, from, span, step, withSpot, corrupt) =>
					withRoot(async (root) => {
						write(root, records);
						const data = join(root, DAY, 'SPX', 'classic_gex_full.rec');
						const size = statSync(data).size;
						if (corrupt !== undefined && size > 0) {
							const bytes = readFileSync(data);
							bytes[corrupt % size] ^= 0x5a;
							writeFileSync(data, bytes);
						}
						recorder = new SessionRecorder({ root });
						const q = new URLSearchParams({ day: DAY });
						if (from !== undefined) q.set('from', String(OPEN + from));
						if (span !== undefined) q.set('to', String(OPEN + (from ?? 0) + span));
						if (step !== undefined) q.set('step', String(step));
						if (withSpot) q.set('with', 'spot');
						// The streamed answer first, on a recorder that has read nothing yet: it is
						// the first read to meet the bad record, and its headers still count only
						// what its body carries.
						const { res, body } = await fetchBody(`/history/SPX/classic_gex_full?${q}`);
						const expected = synchronousBackfill(recorder, DAY, 'SPX', 'classic_gex_full', q);
						expect(res.status).toBe(200);
						expect(res.headers.get('x-gexdeck-day')).toBe(DAY);
						expect(Buffer.from(body).equals(Buffer.from(expected.body))).toBe(true);
						expect(res.headers.get('x-gexdeck-records')).toBe(expected.records);
						expect(res.headers.get('x-gexdeck-first')).toBe(expected.first);
						expect(res.headers.get('x-gexdeck-last')).toBe(expected.last);
					})
			),
			{ numRuns: 100 }
		);
	});

	it('counts only the records it sends on the first answer to meet a flipped byte', () =>
		withRoot(async (root) => {
			const recs = Array.from({ length: 40 }, (_, i) => ({
				spot: i % 2 === 1,
				snapshot: false,
				dt: 1,
				gap: 10,
				size: 1000
			}));
			write(root, recs);
			// A byte of the 5th classic and the 8th spot record goes bad on disk after recording.
			for (const [stream, n] of [
				['classic_gex_full', 4],
				['spot', 7]
			] as const) {
				const data = join(root, DAY, 'SPX', `${stream}.rec`);
				const bytes = readFileSync(data);
				bytes[n * (28 + 1000) + 28 + 500] ^= 0xff;
				writeFileSync(data, bytes);
			}
			recorder = new SessionRecorder({ root });
			const { res, body } = await fetchBody(`/history/SPX/classic_gex_full?day=${DAY}&with=spot`);
			expect(splitBackfill(body)).toHaveLength(38);
			expect(res.headers.get('x-gexdeck-records')).toBe('38');
			// Read again, the same.
			const again = await fetchBody(`/history/SPX/classic_gex_full?day=${DAY}`);
			expect(splitBackfill(again.body)).toHaveLength(19);
			expect(again.res.headers.get('x-gexdeck-records')).toBe('19');
		}));

	it('answers a file appended to while it is served as it was when asked', () =>
		withRoot(async (root) => {
			recorder = new SessionRecorder({ root });
			write(
				root,
				Array.from({ length: 400 }, (_, i) => ({
					spot: i % 4 === 0,
					snapshot: false,
					dt: 1,
					gap: 10,
					size: 20_000
				}))
			);
			const q = new URLSearchParams(`day=${DAY}&with=spot`);
			const expected = synchronousBackfill(recorder, DAY, 'SPX', 'classic_gex_full', q);
			const res = await fetch(`${origin}/history/SPX/classic_gex_full?${q}`);
			const reader = res.body!.getReader();
			const pieces: Uint8Array[] = [];
			const first = await reader.read();
			pieces.push(first.value!);
			// The recorder goes on writing both streams while the answer is on its way.
			const main = recorder.span(DAY, 'SPX', 'classic_gex_full');
			expect(main?.plan.count).toBe(300);
			const files = ['classic_gex_full', 'spot'].map((s) =>
				RecordFile.open(join(root, DAY, 'SPX', `${s}.rec`))
			);
			for (let i = 0; i < 50; i++) {
				for (const f of files)
					f.append(RecordKind.StreamAny, OPEN + 500 + i, 9e12 + i, payload(i, 5000));
			}
			files.forEach((f) => f.close());
			for (;;) {
				const { value, done } = await reader.read();
				if (done) break;
				pieces.push(value);
			}
			const body = Buffer.concat(pieces);
			expect(body.equals(Buffer.from(expected.body))).toBe(true);
			expect(splitBackfill(body)).toHaveLength(400);
			// Asked again, the appended records are there.
			const again = await fetchBody(`/history/SPX/classic_gex_full?${q}`);
			expect(again.res.headers.get('x-gexdeck-records')).toBe('400');
		}));

	it('stops reading when the client goes away mid-body, leaving no descriptor open', () =>
		withRoot(async (root) => {
			// 40 MB: far more than the socket buffers hold, so the client leaves mid-body.
			write(
				root,
				Array.from({ length: 200 }, (_, i) => ({
					spot: i % 2 === 0,
					snapshot: i % 10 === 1,
					dt: 1,
					gap: 5,
					size: 200_000
				}))
			);
			recorder = new SessionRecorder({ root });
			recorder.recoverAll();
			const whole = synchronousBackfill(
				recorder,
				DAY,
				'SPX',
				'classic_gex_full',
				new URLSearchParams('with=spot')
			);
			const before = openFds(root);
			const cutBefore = cut;
			let reading = 0;
			const got = await new Promise<number>((resolve, reject) => {
				const req = get(
					`${origin}/history/SPX/classic_gex_full?with=spot`,
					{ agent: false },
					(res) => {
						let bytes = 0;
						res.on('data', (piece: Buffer) => {
							bytes += piece.length;
							if (bytes > 1_000_000) {
								// Both streams' files are open for this answer now.
								reading = openFds(root);
								req.destroy();
								resolve(bytes);
							}
						});
						res.on('error', () => {});
					}
				);
				req.on('error', () => {});
				req.on('close', () => resolve(-1));
				setTimeout(() => reject(new Error('no body')), 20_000);
			});
			expect(got).toBeGreaterThan(0);
			expect(got).toBeLessThan(whole.body.length);
			expect(reading).toBe(before + 2);
			// The server sees the socket close, cancels the body, and the reader's file closes.
			await expect.poll(() => cut - cutBefore, { timeout: 10_000 }).toBe(1);
			await expect.poll(() => openFds(root), { timeout: 10_000 }).toBe(before);
			expect(closedByGc).toBe(0);
		}));

	it('holds no descriptor once an answer is read whole, or never read', () =>
		withRoot(async (root) => {
			write(
				root,
				Array.from({ length: 50 }, (_, i) => ({
					spot: i % 3 === 0,
					snapshot: false,
					dt: 1,
					gap: 1,
					size: 50_000
				}))
			);
			recorder = new SessionRecorder({ root });
			recorder.recoverAll();
			const before = openFds(root);
			for (let i = 0; i < 5; i++) {
				const { body } = await fetchBody('/history/SPX/classic_gex_full?with=spot');
				expect(splitBackfill(body)).toHaveLength(50);
			}
			// An answer nobody reads (a HEAD, a dropped Response) opens nothing.
			await backfillResponse(recorder, 'SPX', 'classic_gex_full', new URLSearchParams());
			await expect.poll(() => openFds(root), { timeout: 10_000 }).toBe(before);
			expect(closedByGc).toBe(0);
		}));

	it('refuses bad requests with the same statuses and messages', () =>
		withRoot(async (root) => {
			write(root, [{ spot: false, snapshot: false, dt: 0, gap: 1, size: 10 }]);
			recorder = new SessionRecorder({ root });
			const cases: [string, number, string][] = [
				['/history/spx/classic_gex_full', 400, 'Not a ticker: spx'],
				['/history/SPX/no-such', 400, 'Not a stream name: no-such'],
				[
					'/history/SPX/classic_gex_full?source=evil',
					400,
					'source must be "service" (the service\'s history) or absent, got evil'
				],
				[
					'/history/SPX/classic_gex_full?with=everything',
					400,
					'with must be "spot", got everything'
				],
				['/history/SPX/classic_gex_full?from=abc', 400, 'from must be unix seconds, got abc'],
				['/history/SPX/classic_gex_full?to=x', 400, 'to must be unix seconds, got x'],
				[
					'/history/SPX/classic_gex_full?day=yesterday',
					400,
					'day must be YYYY-MM-DD, got yesterday'
				],
				['/history/SPX/classic_gex_full?step=0', 400, 'step must be 1-3600 seconds'],
				[
					'/history/SPX/classic_gex_full?day=2026-11-20',
					404,
					'SPX classic_gex_full was not recorded on 2026-11-20.'
				],
				['/history/NDX/classic_gex_full', 404, 'Nothing recorded for NDX classic_gex_full yet.']
			];
			for (const [path, status, error] of cases) {
				const res = await fetch(origin + path);
				expect([path, res.status, res.headers.get('content-type')]).toEqual([
					path,
					status,
					'application/json'
				]);
				expect(await res.json()).toEqual({ error });
			}
		}));
});
