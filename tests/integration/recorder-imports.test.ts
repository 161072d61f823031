/**
 * The dashboard's imports over real sockets against the embedded service: an EOD report opened
 * as a stream files exactly what reading the whole zip at once gives (the old synchronous
 * unzipSync/gunzipSync path, kept here as the reference); a cap fails clearly with nothing
 * partial left and nothing already stored lost; and concurrent day imports download one at a
 * time, the waiting ones saying where they stand in the queue.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { unzipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import type { HistoryPending } from '../../src/lib/contract/historyPending';
import { eodDownload, openEodReport } from '../../src/lib/server/recorder/eodReports';
import {
	HistoryImportError,
	historyDayStatus,
	importHistoryDay
} from '../../src/lib/server/recorder/historyImport';
import { SessionRecorder } from '../../src/lib/server/recorder/sessionRecorder';
import { jsonArrayElements } from '../../src/lib/server/recorder/snapshotRecords';
import { keys, useHistoryService } from './recorder-history.test-support';

// The service starts Friday 20 Nov 2026, 10:30 ET: Thursday is the newest complete session.
const DAY = '2026-11-19';
let downloading = 0;
let mostDownloading = 0;
const history = useHistoryService('imports', (req, res) => {
	if (!req.url?.startsWith('/download/hist/')) return;
	mostDownloading = Math.max(mostDownloading, ++downloading);
	res.on('close', () => downloading--);
});

const recorders: SessionRecorder[] = [];
afterEach(() => {
	for (const r of recorders.splice(0)) r.close();
});

function recorderAt(name: string): SessionRecorder {
	const root = join(history.deps().recorder.root, '..', name);
	const recorder = new SessionRecorder({ root });
	recorders.push(recorder);
	return recorder;
}

const gunzipText = (b: Uint8Array) => gunzipSync(b).toString('utf8');

/** The report read whole, the old way: stream -> texts of the calculations kept. */
async function referenceReport(): Promise<Map<string, string[]>> {
	const res = await eodDownload(target(), 'UNG');
	const chunks: Buffer[] = [];
	for await (const c of res) chunks.push(c as Buffer);
	expect(res.statusCode).toBe(200);
	const out = new Map<string, string[]>();
	for (const [name, data] of Object.entries(unzipSync(Buffer.concat(chunks)))) {
		const m = /^UNG\/(\w+)\/(\w+)\//.exec(name);
		if (!m) continue;
		let previous = -Infinity;
		const kept: string[] = [];
		for (const e of jsonArrayElements(gunzipText(data))) {
			const ts = (JSON.parse(e) as { timestamp: number }).timestamp;
			if (ts > previous) kept.push(e);
			previous = Math.max(previous, ts);
		}
		out.set(`${m[1]}_${m[2]}`, kept);
	}
	return out;
}

function target() {
	return { baseUrl: history.t.service.url, key: keys.quant, userAgent: 'gexdeck/test' };
}

const stored = (recorder: SessionRecorder, stream: string) =>
	recorder.read(DAY, 'UNG', stream).map((r) => gunzipText(r.payload));

describe('imports', () => {
	it('open an EOD report as a stream, equal to the whole-zip read; a cap keeps what was stored', async () => {
		const recorder = recorderAt('eod');
		const deps = { ...history.deps(), recorder };
		// One stream already on disk (a past day fetched earlier).
		const before = await importHistoryDay(deps, 'UNG', 'classic_gex_full', DAY);
		const reference = await referenceReport();
		expect(reference.size).toBe(15);

		// Over the cap: a clear error, the stored stream untouched, nothing half-filed.
		const refused = await openEodReport(target(), recorder, 'UNG', 100_000).catch(
			(e: unknown) => e
		);
		expect(refused).toMatchObject({ status: 413 });
		expect((refused as Error).message).toMatch(/larger than the .* import limit/);
		expect(recorder.count(DAY, 'UNG', 'classic_gex_full')).toBe(before);
		for (const stream of recorder.streams(DAY, 'UNG')) {
			expect(stored(recorder, stream)).toEqual(reference.get(stream));
		}
		expect(readdirSync(recorder.root).filter((e) => e.startsWith('.import-'))).toEqual([]);

		// Within it: every member filed, byte for byte the calculations the whole zip holds.
		const opened = await openEodReport(target(), recorder, 'UNG');
		expect(opened.day).toBe(DAY);
		expect(opened.streams.map((s) => s.stream).sort()).toEqual([...reference.keys()].sort());
		for (const [stream, texts] of reference) {
			expect(texts.length).toBeGreaterThan(100);
			expect(stored(recorder, stream), stream).toEqual(texts);
		}
	}, 300_000);

	it('refuse a day over the cap with nothing left behind', async () => {
		const recorder = recorderAt('capped');
		const deps = { ...history.deps(), recorder, maxBytes: 50_000 };
		const refused = await importHistoryDay(deps, 'UNG', 'classic_gex_zero', DAY).catch(
			(e: unknown) => e
		);
		expect(refused).toBeInstanceOf(HistoryImportError);
		expect(refused).toMatchObject({ status: 413 });
		expect(recorder.has(DAY, 'UNG', 'classic_gex_zero')).toBe(false);
		expect(existsSync(recorder.root) ? readdirSync(recorder.root) : []).toEqual([]);
	}, 300_000);

	it('download one day at a time; the waiting ones say their place in the queue', async () => {
		const recorder = recorderAt('queued');
		const deps = { ...history.deps(), recorder };
		const streams = [
			'classic_gex_zero',
			'classic_gex_one',
			'state_gex_full',
			'state_delta_zero',
			'orderflow_orderflow'
		];
		mostDownloading = 0;
		const all = streams.map((s) => importHistoryDay(deps, 'UNG', s, DAY));
		const last = streams[streams.length - 1];
		const seen: HistoryPending[] = [];
		for (let i = 0; i < 400 && !(await settled(all)); i++) {
			const status = await historyDayStatus(deps, 'UNG', last, DAY, 0);
			if (status.ready) break;
			seen.push(status.pending);
			await new Promise((r) => setTimeout(r, 5));
		}
		const counts = await Promise.all(all);
		expect(counts.every((n) => n > 100)).toBe(true);
		expect(mostDownloading).toBe(1);
		const queued = seen.filter((p) => p.state === 'import-queued');
		expect(queued.length).toBeGreaterThan(0);
		expect(queued[0].position).toBeGreaterThan(0);
		expect(queued[0].message).toMatch(/ahead on this server/);
		// Its place only moves forward.
		const places = queued.map((p) => p.position);
		expect(places).toEqual([...places].sort((a, b) => b - a));
		for (const s of streams) expect(recorder.count(DAY, 'UNG', s)).toBeGreaterThan(100);
	}, 300_000);
});

async function settled(all: Promise<unknown>[]): Promise<boolean> {
	const tick = Symbol();
	const r = await Promise.race([Promise.all(all).then(() => true), Promise.resolve(tick)]);
	return r === true;
}
