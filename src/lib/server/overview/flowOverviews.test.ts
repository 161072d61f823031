/**
 * The orderflow streams' day overview against the raw records it summarises: at every step, the
 * row is the first raw record of that step, its series read here independently of the
 * overview's code (the wire's decodeFrame for frames, JSON for snapshots); the same whether
 * written live, caught up after a restart, built from the raw file alone, or rebuilt after
 * damage. And the served body decodes to the rows.
 */
import { readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeFrame } from '../../wire';
import { orderflowArb } from '../../wire/arbitraries.test-support';
import { encodeFrame } from '../../wire/encode';
import { decodeFlowOverviewBody } from '../../relay/flowOverviewBody';
import type { OrderflowBody } from '../../contract/schemas';
import { FLOW_SERIES } from '../../contract/flowSeries';
import { RecordKind, type StoredRecord } from '../recorder/recordFormat';
import { RecordFile } from '../recorder/recordFile';
import { recorderRig } from '../recorder/sessionRecorder.test-support';
import { OVERVIEW_STEP_SECONDS } from './dayOverviews';
import { overviewResponse } from './overviewResponse';
import { encodeFlowRow } from './flowOverviewRow';

const OPEN = 1795446000; // 2026-11-23 09:30 ET
const DAY = '2026-11-23';
const STREAM = 'orderflow_orderflow';
const rig = recorderRig('gexdeck-flow-overview-');

/** What a raw record says, read without the overview's code. */
function expectedRow(r: StoredRecord) {
	let body: OrderflowBody;
	if (r.kind === RecordKind.StreamAny) {
		const f = decodeFrame(r.payload);
		if (f.kind !== 'orderflow') throw new Error('not orderflow');
		body = f.value;
	} else body = JSON.parse(gunzipSync(r.payload).toString()) as OrderflowBody;
	return { timestamp: r.timestamp, values: FLOW_SERIES.map((k) => body[k]) };
}

/** The first raw record of every step, from the whole raw file (not its thinned read). */
function expectedOverview() {
	const out: ReturnType<typeof expectedRow>[] = [];
	let step = Number.NaN;
	for (const r of rig.recorder.read(DAY, 'SPX', STREAM)) {
		const s = Math.floor(r.timestamp / OVERVIEW_STEP_SECONDS);
		if (s === step) continue;
		step = s;
		out.push(expectedRow(r));
	}
	return out;
}

const overviewNow = () =>
	(rig.recorder.flowOverviews.rows(DAY, 'SPX', STREAM) ?? []).map((r) => ({
		timestamp: r.timestamp,
		values: [...r.values]
	}));

function publish(ts: number, flow: OrderflowBody, asSnapshot: boolean) {
	const body = { ...flow, ticker: 'SPX', timestamp: ts } as OrderflowBody;
	if (asSnapshot) {
		const json = JSON.stringify(body);
		rig.tap.publish({ source: 'snapshot', ticker: 'SPX', stream: STREAM, receivedAt: 0, json });
	} else {
		const any = encodeFrame('orderflow', body);
		rig.tap.publish({ source: 'stream', group: `SPX_${STREAM}`, receivedAt: 0, any });
	}
}

const stepOf = (t: number) => Math.floor(t / OVERVIEW_STEP_SECONDS);
const overviewPath = () => rig.recorder.flowOverviews.pathOf(DAY, 'SPX', STREAM);

describe('flow overview (orderflow streams)', () => {
	it('equals the first raw record of every step: written live, across a restart, and from raw alone', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(fc.tuple(fc.integer({ min: 0, max: 23 }), orderflowArb, fc.boolean()), {
					minLength: 1,
					maxLength: 40
				}),
				fc.nat(),
				async (updates, restartAt) => {
					rmSync(rig.dir + '/' + DAY, { recursive: true, force: true });
					rig.reopen();
					let ts = OPEN;
					updates.forEach(([gap, flow, asSnapshot], i) => {
						// A restart mid-day: the new recorder catches its overview up, then goes on live.
						if (i === restartAt % updates.length) rig.reopen();
						ts += gap;
						publish(ts, flow, asSnapshot);
					});
					const expected = expectedOverview();
					expect(expected.length).toBeGreaterThan(0);
					expect(overviewNow()).toEqual(expected);
					// The same rows made from the raw file alone (an imported day, a deleted overview).
					rig.reopen();
					rmSync(overviewPath(), { force: true });
					rmSync(`${overviewPath()}.idx`, { force: true });
					expect(overviewNow()).toEqual(expected);
				}
			),
			{ numRuns: 40 }
		);
	});

	it('rebuilds a damaged overview from the raw records, and catches up a torn one', () => {
		fc.sample(orderflowArb, { numRuns: 100, seed: 26 }).forEach((flow, i) =>
			publish(OPEN + i * 3, flow, i % 4 === 0)
		);
		const expected = expectedOverview();
		expect(expected).toHaveLength(30);
		expect(overviewNow()).toEqual(expected);
		rig.reopen();
		const bytes = readFileSync(overviewPath());
		bytes[Math.floor(bytes.length / 2)] ^= 0xff;
		writeFileSync(overviewPath(), bytes);
		const said: string[] = [];
		rig.reopen({ log: (m) => said.push(m) });
		expect(overviewNow()).toEqual(expected);
		expect(said.join('\n')).toMatch(/rebuilt from the raw records/);
		// A kill mid-write tore the last row: it is made again from the raw file.
		rig.reopen();
		truncateSync(overviewPath(), readFileSync(overviewPath()).length - 5);
		rig.reopen();
		expect(overviewNow()).toEqual(expected);
		// Rows of another format in its place (the same size, another version byte): rebuilt too.
		rig.reopen();
		rmSync(overviewPath());
		rmSync(`${overviewPath()}.idx`);
		const other = RecordFile.open(overviewPath());
		for (const r of expected) {
			const row = encodeFlowRow({ timestamp: r.timestamp, values: Float64Array.from(r.values) });
			row[0] = 2;
			other.append(RecordKind.OverviewRow, r.timestamp, 0, row);
		}
		other.close();
		said.length = 0;
		rig.reopen({ log: (m) => said.push(m) });
		expect(overviewNow()).toEqual(expected);
		expect(said.join('\n')).toMatch(/older format; rebuilt from the raw records/);
	});

	it('is made the same way for an imported day (a history download, an opened EOD report)', () => {
		const day = '2026-11-20';
		const open = OPEN - 3 * 86_400;
		const draft = rig.recorder.beginImport(day, 'SPX', STREAM)!;
		fc.sample(orderflowArb, { numRuns: 80, seed: 20 }).forEach((flow, i) => {
			const json = JSON.stringify({ ...flow, ticker: 'SPX', timestamp: open + i * 4 });
			draft.append(RecordKind.SnapshotGzipJson, open + i * 4, gzipSync(json));
		});
		expect(rig.recorder.commitImport(day, draft)).toBe(true);
		const expected: ReturnType<typeof expectedRow>[] = [];
		for (const r of rig.recorder.read(day, 'SPX', STREAM)) {
			if (
				expected.at(-1)?.timestamp === undefined ||
				stepOf(r.timestamp) !== stepOf(expected.at(-1)!.timestamp)
			)
				expected.push(expectedRow(r));
		}
		expect(expected).toHaveLength(32);
		const rows = rig.recorder.flowOverviews.rows(day, 'SPX', STREAM)!;
		expect(rows.map((r) => ({ timestamp: r.timestamp, values: [...r.values] }))).toEqual(expected);
	});

	it('is served as one gzip body that decodes to the rows, exactly', () => {
		fc.sample(orderflowArb, { numRuns: 60, seed: 7 }).forEach((flow, i) =>
			publish(OPEN + i * 2, flow, i % 3 === 0)
		);
		const answer = overviewResponse(rig.recorder, 'SPX', STREAM, new URLSearchParams(`day=${DAY}`));
		expect(answer.status).toBe(200);
		expect(answer.headers['content-encoding']).toBe('gzip');
		const decoded = decodeFlowOverviewBody(gunzipSync(answer.body as Uint8Array));
		const rows = expectedOverview();
		expect(decoded.header.series).toEqual([...FLOW_SERIES]);
		expect(decoded.header.step).toBe(OVERVIEW_STEP_SECONDS);
		expect([...decoded.times]).toEqual(rows.map((r) => r.timestamp));
		FLOW_SERIES.forEach((_, s) => {
			expect([...decoded.values[s]]).toEqual(rows.map((r) => r.values[s]));
		});
		expect(answer.headers['x-gexdeck-last']).toBe(String(rows.at(-1)!.timestamp));
		const other = new URLSearchParams('day=2026-11-20');
		expect(overviewResponse(rig.recorder, 'SPX', STREAM, other).status).toBe(404);
	});
});
