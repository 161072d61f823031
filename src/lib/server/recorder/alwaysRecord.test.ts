/**
 * Which tickers the server records when no tab is open: a list saved on the Account page wins,
 * else the watchlist the user last opened (reported by the watchlist page), else a fresh
 * install's default; the last watchlist is kept in the database and survives restarts; an older
 * release's files are imported (a corrupt last watchlist set aside and forgotten).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ALL_TICKERS, isStreamTicker } from '../../contract/tickers';
import { openDatabase, type Database } from '../db/index';
import { openRecords } from '../db/legacyImport';
import { loadRecordingStore, saveRecording } from './recordingStore';

const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-always-'));
vi.mock('$env/dynamic/private', () => ({ env: { GEXDECK_DATA_DIR: dataDir } }));

const {
	DEFAULT_ALWAYS_RECORD,
	LAST_WATCHLIST_MAX,
	ALWAYS_RECORD_MAX,
	alwaysRecordList,
	currentAlwaysRecord,
	readLastWatchlist,
	rememberWatchlist,
	updateRecordingSettings
} = await import('./recorderMount');

let db: Database;
beforeAll(async () => {
	db = await openDatabase({ dataDir });
	await loadRecordingStore(db);
});
afterAll(async () => {
	await db.close();
	rmSync(dataDir, { recursive: true, force: true });
});

describe('alwaysRecordList', () => {
	const last = { version: 1 as const, tickers: ['IWM', 'TSLA'], openedAt: 5 };

	it('prefers a saved list, then the last watchlist, then the default', () => {
		expect(alwaysRecordList(['SPY'], last)).toEqual({ tickers: ['SPY'], source: 'saved' });
		// An empty saved list is a choice (record nothing), not "unset".
		expect(alwaysRecordList([], last)).toEqual({ tickers: [], source: 'saved' });
		expect(alwaysRecordList(null, last)).toEqual({
			tickers: ['IWM', 'TSLA'],
			source: 'watchlist',
			openedAt: 5
		});
		expect(alwaysRecordList(null, undefined)).toEqual({
			tickers: DEFAULT_ALWAYS_RECORD,
			source: 'default'
		});
	});
});

describe('rememberWatchlist', () => {
	it('a fresh install records the default list', () => {
		expect(currentAlwaysRecord()).toEqual({ tickers: DEFAULT_ALWAYS_RECORD, source: 'default' });
	});

	it('makes the opened watchlist the list in effect, normalised, and stores it', async () => {
		const effective = await rememberWatchlist([' iwm', 'TSLA', 'IWM'], 1_000);
		expect(effective).toEqual({ tickers: ['IWM', 'TSLA'], source: 'watchlist', openedAt: 1_000 });
		expect(readLastWatchlist()).toEqual({ version: 1, tickers: ['IWM', 'TSLA'], openedAt: 1_000 });
		// Kept in the database: a restart (a fresh load) finds it.
		const again = await openDatabase({ dataDir });
		await loadRecordingStore(again);
		expect(readLastWatchlist()?.tickers).toEqual(['IWM', 'TSLA']);
		await again.close();
		await loadRecordingStore(db);
	});

	it('refuses unknown tickers and over-long lists, keeping the last list', async () => {
		await expect(rememberWatchlist(['SPX', 'NOPE'])).rejects.toThrow(/Unknown tickers: NOPE/);
		const tooMany = ALL_TICKERS.filter((t) => isStreamTicker(t)).slice(0, LAST_WATCHLIST_MAX + 1);
		expect(tooMany).toHaveLength(LAST_WATCHLIST_MAX + 1);
		await expect(rememberWatchlist(tooMany)).rejects.toThrow(/at most 20/);
		await rememberWatchlist(['IWM', 'TSLA'], 2_000);
		expect(readLastWatchlist()?.tickers).toEqual(['IWM', 'TSLA']);
	});

	it('does not override a list saved on the Account page', async () => {
		await saveRecording({ alwaysRecord: ['SPY'], retentionDays: 20, maxBytes: 5e9 });
		expect(await rememberWatchlist(['QQQ'], 3_000)).toEqual({ tickers: ['SPY'], source: 'saved' });
		expect(readLastWatchlist()?.tickers).toEqual(['QQQ']);
		// Following the watchlist again (alwaysRecord: null) brings the last one back.
		await saveRecording({ alwaysRecord: null, retentionDays: 20, maxBytes: 5e9 });
		expect(currentAlwaysRecord()).toEqual({
			tickers: ['QQQ'],
			source: 'watchlist',
			openedAt: 3_000
		});
	});
});

describe('bad or oversized lists', () => {
	it("an older release's files are imported; a corrupt last watchlist is set aside (one copy) and forgotten", async () => {
		const old = mkdtempSync(join(tmpdir(), 'gexdeck-always-old-'));
		const file = join(old, 'last-watchlist.json');
		writeFileSync(file, '{"tickers": [');
		writeFileSync(
			join(old, 'recording.json'),
			JSON.stringify({ version: 1, alwaysRecord: ['RUT'], retentionDays: 9, maxBytes: 1e9 })
		);
		const records = await openRecords({ dataDir: old });
		await loadRecordingStore(records);
		const copies = readdirSync(old).filter((f) => f.includes('last-watchlist.json.corrupt-'));
		expect(copies).toHaveLength(1);
		expect(existsSync(file)).toBe(false);
		expect(readLastWatchlist()).toBeUndefined();
		expect(currentAlwaysRecord()).toEqual({ tickers: ['RUT'], source: 'saved' });
		expect(existsSync(join(old, 'recording.json.imported'))).toBe(true);
		await records.close();
		await loadRecordingStore(db);
		rmSync(old, { recursive: true, force: true });
	});

	it("the Account page's always-record list holds at most 20 tickers, with a clear error", async () => {
		expect(ALWAYS_RECORD_MAX).toBe(20);
		const tooMany = ALL_TICKERS.filter((t) => isStreamTicker(t)).slice(0, ALWAYS_RECORD_MAX + 1);
		await expect(
			updateRecordingSettings({ alwaysRecord: tooMany, retentionDays: 20, maxBytes: 5e9 })
		).rejects.toThrow(/Always record holds at most 20 tickers \(21 given\)/);
		// A stored list holding more (an older release's hand-edited file) is read as its first 20.
		await saveRecording({ alwaysRecord: tooMany, retentionDays: 20, maxBytes: 5e9 });
		expect(currentAlwaysRecord().tickers).toHaveLength(ALWAYS_RECORD_MAX);
	});
});
