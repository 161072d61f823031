/**
 * The day overview against the raw records it summarises: at every step, the row is the first
 * raw record of that step, decoded here independently of the overview's code (the wire decoder
 * for frames, JSON for snapshots); the same whether written live, caught up after a restart,
 * built from the raw file alone, or rebuilt after damage. And the served body round-trips.
 */
import { existsSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeColumnarFrame } from '../../wire';
import { chainArb, spxChain } from '../../wire/arbitraries.test-support';
import { encodeFrame } from '../../wire/encode';
import { decodeOverviewBody, OVERVIEW_CELL_ERROR } from '../../relay/overviewBody';
import type { ClassicChain } from '../../contract/schemas';
import { RecordKind, type StoredRecord } from '../recorder/recordFormat';
import { RecordFile } from '../recorder/recordFile';
import { recorderRig } from '../recorder/sessionRecorder.test-support';
import { OVERVIEW_STEP_SECONDS } from './dayOverviews';
import { ROW_CELL_ERROR } from './overviewRow';
import { overviewResponse } from './overviewResponse';

const OPEN = 1795446000; // 2026-11-23 09:30 ET
const DAY = '2026-11-23';
const STREAM = 'classic_gex_full';
const rig = recorderRig('gexdeck-overview-');

/** What a raw record says, read without the overview's code. */
function expectedRow(r: StoredRecord) {
	const g =
		r.kind === RecordKind.StreamAny
			? (() => {
					const f = decodeColumnarFrame(r.payload);
					if (f.kind !== 'gex') throw new Error('not a chain');
					return {
						...f.value,
						strikes: [...f.value.strikes],
						gexVol: [...f.value.gexVol],
						gexOi: [...f.value.gexOi]
					};
				})()
			: (() => {
					const c = JSON.parse(gunzipSync(r.payload).toString()) as ClassicChain;
					return {
						spot: c.spot,
						zeroGamma: c.zero_gamma,
						majorPosVol: c.major_pos_vol,
						majorPosOi: c.major_pos_oi,
						majorNegVol: c.major_neg_vol,
						majorNegOi: c.major_neg_oi,
						strikes: c.strikes.map((s) => s[0]),
						gexVol: c.strikes.map((s) => s[1]),
						gexOi: c.strikes.map((s) => s[2])
					};
				})();
	return {
		timestamp: r.timestamp,
		spot: g.spot,
		zeroGamma: g.zeroGamma,
		majorPosVol: g.majorPosVol,
		majorPosOi: g.majorPosOi,
		majorNegVol: g.majorNegVol,
		majorNegOi: g.majorNegOi,
		strikes: g.strikes,
		gexVol: g.gexVol.map(Math.fround),
		gexOi: g.gexOi.map(Math.fround)
	};
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

function overviewNow() {
	return (rig.recorder.overviews.rows(DAY, 'SPX', STREAM) ?? []).map((r) => ({
		...r,
		strikes: [...r.strikes],
		gexVol: [...r.gexVol],
		gexOi: [...r.gexOi]
	}));
}

/**
 * The overview now equals `expected`: times, spot, zero gamma, majors and strikes exactly, each
 * cell within ROW_CELL_ERROR of its row's largest |value| (+ the f32 rounding of the result).
 */
function expectOverview(expected: ReturnType<typeof expectedRow>[]) {
	const actual = overviewNow();
	expect(actual.map((r) => ({ ...r, gexVol: [], gexOi: [] }))).toEqual(
		expected.map((r) => ({ ...r, gexVol: [], gexOi: [] }))
	);
	actual.forEach((row, i) => {
		for (const key of ['gexVol', 'gexOi'] as const) {
			const want = expected[i][key];
			const max = Math.max(0, ...want.filter(Number.isFinite).map(Math.abs));
			row[key].forEach((v, k) => {
				if (!Number.isFinite(want[k])) return void expect(v).toBeNaN();
				expect(Math.abs(v - want[k])).toBeLessThanOrEqual(
					max * (ROW_CELL_ERROR + 1e-7) + 2 ** -149
				);
			});
		}
	});
}

function publish(ts: number, chain: ClassicChain, asSnapshot: boolean) {
	const body = { ...chain, ticker: 'SPX', timestamp: ts };
	if (asSnapshot) {
		const json = JSON.stringify(body);
		rig.tap.publish({ source: 'snapshot', ticker: 'SPX', stream: STREAM, receivedAt: 0, json });
	} else {
		const any = encodeFrame('gex', body);
		rig.tap.publish({ source: 'stream', group: `SPX_${STREAM}`, receivedAt: 0, any });
	}
}

const overviewPath = () => rig.recorder.overviews.pathOf(DAY, 'SPX', STREAM);

describe('day overview', () => {
	it('equals the first raw record of every step: written live, across a restart, and from raw alone', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(fc.tuple(fc.integer({ min: 0, max: 23 }), chainArb, fc.boolean()), {
					minLength: 1,
					maxLength: 30
				}),
				fc.nat(),
				async (updates, restartAt) => {
					rig.reopen();
					rmSync(rig.dir + '/' + DAY, { recursive: true, force: true });
					rig.reopen();
					let ts = OPEN;
					updates.forEach(([gap, chain, asSnapshot], i) => {
						// A restart mid-day: the new recorder catches its overview up, then goes on live.
						if (i === restartAt % updates.length) rig.reopen();
						ts += gap;
						publish(ts, chain, asSnapshot);
					});
					const expected = expectedOverview();
					expect(expected.length).toBeGreaterThan(0);
					expectOverview(expected);
					// The same rows made from the raw file alone (an imported day, a deleted overview).
					rig.reopen();
					rmSync(overviewPath(), { force: true });
					rmSync(`${overviewPath()}.idx`, { force: true });
					expectOverview(expected);
				}
			),
			{ numRuns: 40 }
		);
	});

	it('rebuilds a damaged overview from the raw records, and catches up a torn one', () => {
		for (let s = 0; s < 300; s += 3) publish(OPEN + s, spxChain(30, s % 7), false);
		const expected = expectedOverview();
		expectOverview(expected);
		expect(expected).toHaveLength(30);
		rig.reopen();
		const bytes = readFileSync(overviewPath());
		bytes[Math.floor(bytes.length / 2)] ^= 0xff;
		writeFileSync(overviewPath(), bytes);
		const said: string[] = [];
		rig.reopen({ log: (m) => said.push(m) });
		expectOverview(expected);
		expect(said.join('\n')).toMatch(/rebuilt from the raw records/);
		// A kill mid-write tore the last row: it is made again from the raw file.
		rig.reopen();
		truncateSync(overviewPath(), readFileSync(overviewPath()).length - 5);
		rig.reopen();
		expectOverview(expected);
	});

	it("stores a day's strikes once per change, 4 bytes a strike in every other row", () => {
		// 30 steps of 30 strikes, the list changing once (at the 15th step, 31 strikes).
		for (let s = 0; s < 300; s += 10) publish(OPEN + s, spxChain(s < 150 ? 30 : 31, s % 7), false);
		expect(overviewNow()).toHaveLength(30);
		const header = 28; // a record's framing (recordFile.ts)
		const head = 72; // a row's version, flags, count, scalars and scales
		const cells = 15 * 30 * 4 + 15 * 31 * 4;
		expect(statSync(overviewPath()).size).toBe(30 * (header + head) + cells + (30 + 31) * 8);
	});

	it('rebuilds an overview written in the older format (f64 strikes, f32 cells every row)', () => {
		for (let s = 0; s < 100; s += 5) publish(OPEN + s, spxChain(20, s % 3), false);
		const expected = expectedOverview();
		rig.reopen(); // the overview closed, not yet opened again
		rmSync(overviewPath());
		rmSync(`${overviewPath()}.idx`);
		const old = RecordFile.open(overviewPath());
		for (const row of expected) {
			const n = row.strikes.length;
			const v1 = Buffer.alloc(56 + n * 16);
			v1[0] = 1;
			v1.writeUInt32LE(n, 4);
			const scalars = [row.spot, row.zeroGamma, row.majorPosVol, row.majorPosOi];
			[...scalars, row.majorNegVol, row.majorNegOi].forEach((v, i) =>
				v1.writeDoubleLE(v, 8 + i * 8)
			);
			row.strikes.forEach((k, i) => v1.writeDoubleLE(k, 56 + i * 8));
			row.gexVol.forEach((v, i) => v1.writeFloatLE(v, 56 + n * 8 + i * 4));
			row.gexOi.forEach((v, i) => v1.writeFloatLE(v, 56 + n * 12 + i * 4));
			old.append(RecordKind.OverviewRow, row.timestamp, 0, v1);
		}
		old.close();
		const oldSize = statSync(overviewPath()).size;
		const said: string[] = [];
		rig.reopen({ log: (m) => said.push(m) });
		expectOverview(expected);
		expect(said.join('\n')).toMatch(/older format; rebuilt from the raw records/);
		expect(statSync(overviewPath()).size).toBeLessThan(oldSize / 2);
	});

	it('is served as one gzip body that decodes to the rows (metric, union of strikes, quantised)', () => {
		for (let s = 0; s < 120; s += 1) publish(OPEN + s, spxChain(40 + (s % 3), s % 5), s % 2 === 0);
		const answer = overviewResponse(
			rig.recorder,
			'SPX',
			STREAM,
			new URLSearchParams(`day=${DAY}&metric=oi`)
		);
		expect(answer.status).toBe(200);
		expect(answer.headers['content-encoding']).toBe('gzip');
		const decoded = decodeOverviewBody(gunzipSync(answer.body as Uint8Array));
		const rows = expectedOverview();
		expect(decoded.header.columns).toBe(rows.length);
		expect([...decoded.times]).toEqual(rows.map((r) => r.timestamp));
		const strikes = decoded.header.strikes;
		rows.forEach((row, col) => {
			const max = Math.max(...row.gexOi.map(Math.abs));
			expect(decoded.majorPos[col]).toBe(Math.fround(row.majorPosOi));
			row.strikes.forEach((strike, i) => {
				const cell = decoded.values[col * strikes.length + strikes.indexOf(strike)];
				// The body's int8 step on top of the stored int16 step.
				expect(Math.abs(cell - row.gexOi[i])).toBeLessThanOrEqual(
					max * (OVERVIEW_CELL_ERROR + 2 * ROW_CELL_ERROR)
				);
			});
		});
		expect(overviewResponse(rig.recorder, 'SPX', 'spot', new URLSearchParams()).status).toBe(400);
		// The lines alone (the levels path, Classic's timeline): the same columns, no strikes.
		const lines = overviewResponse(
			rig.recorder,
			'SPX',
			STREAM,
			new URLSearchParams(`day=${DAY}&cells=none`)
		);
		const bare = decodeOverviewBody(gunzipSync(lines.body as Uint8Array));
		expect(bare.header.strikes).toEqual([]);
		expect(bare.values).toHaveLength(0);
		expect([...bare.times]).toEqual(rows.map((r) => r.timestamp));
		expect([...bare.spot]).toEqual(rows.map((r) => Math.fround(r.spot)));
		expect([...bare.zeroGamma]).toEqual(rows.map((r) => Math.fround(r.zeroGamma)));
		expect([...bare.majorNeg]).toEqual(rows.map((r) => Math.fround(r.majorNegVol)));
		const cells = new URLSearchParams(`day=${DAY}&cells=some`);
		expect(overviewResponse(rig.recorder, 'SPX', STREAM, cells).status).toBe(400);
	});

	it('answers ready=1 with 404 instead of building a missing overview, and with the day once built', () => {
		for (let s = 0; s < 60; s += 1) publish(OPEN + s, spxChain(30, s % 5), false);
		rig.reopen();
		// A day recorded before overviews were: its raw records only.
		rmSync(overviewPath(), { force: true });
		rmSync(`${overviewPath()}.idx`, { force: true });
		rig.reopen();
		const ask = (q: string) =>
			overviewResponse(rig.recorder, 'SPX', STREAM, new URLSearchParams(`day=${DAY}&${q}`));
		expect(ask('cells=none&ready=1').status).toBe(404);
		expect(existsSync(overviewPath())).toBe(false);
		expect(ask('cells=none&ready=yes').status).toBe(400);
		// Asked the way a view asks, it is built; then a page may have it.
		expect(ask('cells=none').status).toBe(200);
		const ready = ask('cells=none&ready=1');
		expect(ready.status).toBe(200);
		expect(decodeOverviewBody(gunzipSync(ready.body as Uint8Array)).header.columns).toBe(6);
		// Built, and closed again (a restart): still there to read.
		rig.reopen();
		expect(ask('cells=none&ready=1').status).toBe(200);
	});

	it("keeps a day's encoded answer until the day grows: asked again, it is not made again", () => {
		for (let s = 0; s < 60; s += 1) publish(OPEN + s, spxChain(30, s % 5), false);
		const ask = (q: string) =>
			overviewResponse(rig.recorder, 'SPX', STREAM, new URLSearchParams(`day=${DAY}&${q}`));
		const columns = (a: ReturnType<typeof ask>) =>
			decodeOverviewBody(gunzipSync(a.body as Uint8Array)).header.columns;
		const first = ask('metric=vol');
		expect(columns(first)).toBe(6);
		// The same body object: neither read, encoded nor compressed again.
		expect(ask('metric=vol').body).toBe(first.body);
		// Each metric and cells choice is its own body.
		const lines = ask('metric=vol&cells=none');
		expect(lines.body).not.toBe(first.body);
		expect(decodeOverviewBody(gunzipSync(lines.body as Uint8Array)).header.strikes).toEqual([]);
		expect(ask('metric=oi').body).not.toBe(first.body);
		// A record inside the last step adds no row: still the same answer.
		publish(OPEN + 59.5, spxChain(30, 1), false);
		expect(ask('metric=vol').body).toBe(first.body);
		// A record opening a new step grows the day: every kept body is made again.
		publish(OPEN + 60, spxChain(30, 2), false);
		const grown = ask('metric=vol');
		expect(columns(grown)).toBe(7);
		expect(grown.headers['x-gexdeck-records']).toBe('7');
		expect(grown.headers['x-gexdeck-last']).toBe(String(OPEN + 60));
		expect(columns(ask('metric=vol&cells=none'))).toBe(7);
		expect(ask('metric=vol').body).toBe(grown.body);
		// Reopened (a restart), the answer is made from the file again, equal to the kept one.
		rig.reopen();
		const reopened = ask('metric=vol');
		expect(reopened.body).not.toBe(grown.body);
		expect(Buffer.from(reopened.body as Uint8Array).equals(grown.body as Buffer)).toBe(true);
	});
});
