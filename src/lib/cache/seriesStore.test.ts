import 'fake-indexeddb/auto';
import { openDB, type IDBPDatabase } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';
import { DaySeries, FLOW_SERIES, type SeriesChunk } from '$lib/stream/series/orderflowSeries';
import { etInstant } from '$lib/contract/newYorkTime';
import { DB_VERSION, MIGRATIONS, upgrade, type GexdeckDB } from './schema';
import { encodeChunk } from './seriesChunk';
import { loadNewestDay, pruneDaysBefore, saveChunks } from './seriesStore';

let n = 0;
const opened: IDBPDatabase<GexdeckDB>[] = [];
async function fresh(): Promise<IDBPDatabase<GexdeckDB>> {
	const db = await openDB<GexdeckDB>(`series-test-${n++}`, DB_VERSION, {
		upgrade: (d, old, _new, tx) => upgrade(d, old, tx)
	});
	opened.push(db);
	return db;
}
afterEach(() => {
	for (const db of opened.splice(0)) db.close();
});

const OPEN = etInstant('2026-11-23', 9.5 * 3600);
const row = (x: number) => FLOW_SERIES.map((_, s) => x + s / 10);

function chunkOf(times: number[], x = 1): SeriesChunk {
	return {
		times: Uint32Array.from(times),
		values: FLOW_SERIES.map((_, s) => Float64Array.from(times, (t) => t * x + s))
	};
}

describe('schema v3', () => {
	it('adds the series store to a v2 database and keeps its snapshots', async () => {
		const name = `series-upgrade-${n++}`;
		const v2 = await openDB<GexdeckDB>(name, 2, {
			upgrade: (d, old, _new, tx) => {
				for (let v = old; v < 2; v++) MIGRATIONS[v](d, tx);
			}
		});
		await v2.put('snapshots', {
			route: 'SPX/classic/gex_full',
			data: { spot: 1 },
			savedAt: 5,
			dataTimestamp: 7
		});
		v2.close();
		expect(DB_VERSION).toBeGreaterThanOrEqual(3);
		const v3 = await openDB<GexdeckDB>(name, DB_VERSION, {
			upgrade: (d, old, _new, tx) => upgrade(d, old, tx)
		});
		opened.push(v3);
		expect([...v3.objectStoreNames]).toEqual(
			expect.arrayContaining(['orderflowSeries', 'snapshots'])
		);
		expect(await v3.get('snapshots', 'SPX/classic/gex_full')).toMatchObject({ data: { spot: 1 } });
		expect(await v3.getAllFromIndex('snapshots', 'by-savedAt')).toHaveLength(1);
	});
});

describe('series store', () => {
	it('saves a day and loads it back in time order into a DaySeries', async () => {
		const db = await fresh();
		const s = new DaySeries();
		for (let i = 0; i < 1500; i++) s.append(OPEN + i, row(i));
		const chunks = new Map(s.takeDirty().map((k) => [k, s.chunk(k)]));
		expect(chunks.size).toBe(3);
		await saveChunks(db, 'SPX', s.day!, chunks);

		const stored = await loadNewestDay(db, 'SPX');
		expect(stored?.day).toBe('2026-11-23');
		const back = new DaySeries();
		for (const c of stored!.chunks) back.merge(c);
		expect(back.length).toBe(1500);
		expect([...back.times.subarray(0, back.length)]).toEqual([...s.times.subarray(0, s.length)]);
		for (let k = 0; k < FLOW_SERIES.length; k++) {
			expect([...back.values[k].subarray(0, 1500)]).toEqual([...s.values[k].subarray(0, 1500)]);
		}
		expect(await loadNewestDay(db, 'NDX')).toBeUndefined();
	});

	it('merges with what another tab stored instead of overwriting it', async () => {
		const db = await fresh();
		await saveChunks(db, 'SPX', '2026-11-23', new Map([[57, chunkOf([OPEN, OPEN + 2], 1)]]));
		await saveChunks(db, 'SPX', '2026-11-23', new Map([[57, chunkOf([OPEN + 1, OPEN + 2], 2)]]));
		const [c] = (await loadNewestDay(db, 'SPX'))!.chunks;
		expect([...c.times]).toEqual([OPEN, OPEN + 1, OPEN + 2]);
		expect([...c.values[0]]).toEqual([OPEN, 2 * (OPEN + 1), 2 * (OPEN + 2)]);
	});

	it('loads the newest day and prunes every older day of every ticker', async () => {
		const db = await fresh();
		await saveChunks(db, 'SPX', '2026-11-20', new Map([[57, chunkOf([OPEN - 3 * 86400])]]));
		await saveChunks(db, 'NDX', '2026-11-20', new Map([[57, chunkOf([OPEN - 3 * 86400])]]));
		await saveChunks(db, 'SPX', '2026-11-23', new Map([[57, chunkOf([OPEN])]]));
		expect((await loadNewestDay(db, 'SPX'))?.day).toBe('2026-11-23');
		expect(await pruneDaysBefore(db, '2026-11-23')).toBe(2);
		expect(await loadNewestDay(db, 'NDX')).toBeUndefined();
		expect((await loadNewestDay(db, 'SPX'))?.chunks).toHaveLength(1);
	});

	it('skips a corrupt record and reads a chunk written with another series list', async () => {
		const db = await fresh();
		await db.put('orderflowSeries', {
			day: '2026-11-23',
			ticker: 'SPX',
			chunk: 1,
			series: ['spot', 'dexoflow'],
			data: encodeChunk({
				times: Uint32Array.from([OPEN]),
				values: [Float64Array.from([7000.5]), Float64Array.from([-3])]
			}),
			count: 1,
			savedAt: 0
		});
		await db.put('orderflowSeries', {
			day: '2026-11-23',
			ticker: 'SPX',
			chunk: 2,
			series: [...FLOW_SERIES],
			data: new ArrayBuffer(40),
			count: 1,
			savedAt: 0
		});
		const stored = (await loadNewestDay(db, 'SPX'))!;
		expect(stored.unreadable).toBe(1);
		const [c] = stored.chunks;
		expect(c.values[FLOW_SERIES.indexOf('spot')][0]).toBe(7000.5);
		expect(c.values[FLOW_SERIES.indexOf('dexoflow')][0]).toBe(-3);
		expect(c.values[FLOW_SERIES.indexOf('gexoflow')][0]).toBeNaN();
	});
});
