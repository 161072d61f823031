/**
 * The service's cache of generated ticker-days holds its limits: least recently used first, by
 * count and by bytes (each day by its own manifest's sizes), never a day in use; a day read is
 * marked used, so it outlives days generated earlier but not read since.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dayKeysOf } from './dayKeys';
import { DayManifests, cachedDays, daysToEvict } from './dayCacheLimits';
import { HistoryStore, historyCacheFolder } from './historyStore';
import { MANIFEST } from './tickerDayFiles';

const MB = 1024 ** 2;
const dirs: string[] = [];
afterEach(() => {
	for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A complete ticker-day folder whose members total `mb` MB, last used `usedAt` (unix s). */
function plantDay(folder: string, date: string, ticker: string, mb: number, usedAt: number) {
	const dir = join(folder, date, ticker);
	mkdirSync(dir, { recursive: true });
	const keys = dayKeysOf('observed');
	const members = Object.fromEntries(
		keys.map((k, i) => [k, { size: i === 0 ? mb * MB : 0, crc: 0 }])
	);
	writeFileSync(join(dir, MANIFEST), JSON.stringify({ ticker, date, records: 1, members }));
	utimesSync(join(dir, MANIFEST), usedAt, usedAt);
	return dir;
}

describe('the generated-day cache', () => {
	it('evicts the least recently used days beyond the count and the bytes, never one in use', async () => {
		const folder = mkdtempSync(join(tmpdir(), 'gexdeck-day-cache-'));
		dirs.push(folder);
		const a = plantDay(folder, '2026-11-16', 'SPX', 300, 1000);
		const b = plantDay(folder, '2026-11-17', 'SPX', 300, 3000);
		const c = plantDay(folder, '2026-11-18', 'NDX', 300, 2000);
		const d = plantDay(folder, '2026-11-19', 'SPX', 300, 4000);
		mkdirSync(join(folder, '2026-11-20', 'SPX'), { recursive: true }); // being written: no manifest
		const days = await cachedDays(folder);
		expect(days.map((x) => x.bytes)).toEqual([300 * MB, 300 * MB, 300 * MB, 300 * MB]);
		// By count: the two used longest ago (a, then c), whatever their dates.
		expect(daysToEvict(days, { maxDays: 2, maxBytes: Infinity }, new Set())).toEqual([a, c]);
		// By bytes: 1,200 MB under a 700 MB cap: two go (each by its own size), a third would not.
		expect(daysToEvict(days, { maxDays: 99, maxBytes: 700 * MB }, new Set())).toEqual([a, c]);
		expect(daysToEvict(days, { maxDays: 99, maxBytes: 600 * MB - 1 }, new Set())).toEqual([
			a,
			c,
			b
		]);
		// A day in use is passed over.
		expect(daysToEvict(days, { maxDays: 2, maxBytes: Infinity }, new Set([a]))).toEqual([c, b]);
		expect(existsSync(d)).toBe(true);
	});

	it('marks a day read as used, so an older day read since outlives a newer one', async () => {
		const folder = mkdtempSync(join(tmpdir(), 'gexdeck-day-cache-'));
		dirs.push(folder);
		const old = plantDay(folder, '2026-11-16', 'SPX', 1, 1000);
		const newer = plantDay(folder, '2026-11-17', 'SPX', 1, 2000);
		const cache = new DayManifests(folder, { maxDays: 1, maxBytes: Infinity });
		await cache.remember('SPX|2026-11-16', old, {
			ticker: 'SPX',
			date: '2026-11-16',
			records: 1,
			members: {}
		});
		expect(await cache.evict(new Set())).toEqual([newer]);
		expect(existsSync(old)).toBe(true);
	});

	it('holds at start and after every generated day in the service (HistoryStore)', async () => {
		const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-day-cache-'));
		dirs.push(dataDir);
		const folder = join(dataDir, 'history', historyCacheFolder(7));
		plantDay(folder, '2026-11-16', 'HYG', 1, 1000);
		const kept = plantDay(folder, '2026-11-17', 'HYG', 1, 2000);
		const store = new HistoryStore({
			seed: 7,
			dataDir,
			waitMs: 60_000,
			now: () => Date.parse('2026-11-20T15:00:00Z'),
			live: { liveTick: () => undefined },
			cacheLimits: { maxDays: 1 }
		});
		await store.init();
		expect((await cachedDays(folder)).map((x) => x.dir)).toEqual([kept]);
	});
});
