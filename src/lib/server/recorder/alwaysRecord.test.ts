/**
 * Which tickers the server records when no tab is open: a list saved on the Account page wins,
 * else the watchlist the user last opened (reported by the watchlist page), else a fresh
 * install's default; the last watchlist is kept in the data folder and survives restarts.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ALL_TICKERS, isStreamTicker } from '../../contract/tickers';

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

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

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

	it('makes the opened watchlist the list in effect, normalised, and stores it', () => {
		const effective = rememberWatchlist([' iwm', 'TSLA', 'IWM'], 1_000);
		expect(effective).toEqual({ tickers: ['IWM', 'TSLA'], source: 'watchlist', openedAt: 1_000 });
		expect(readLastWatchlist()).toEqual({ version: 1, tickers: ['IWM', 'TSLA'], openedAt: 1_000 });
		const file = JSON.parse(readFileSync(join(dataDir, 'last-watchlist.json'), 'utf8'));
		expect(file.tickers).toEqual(['IWM', 'TSLA']);
	});

	it('refuses unknown tickers and over-long lists, keeping the last list', () => {
		expect(() => rememberWatchlist(['SPX', 'NOPE'])).toThrow(/Unknown tickers: NOPE/);
		const tooMany = ALL_TICKERS.filter((t) => isStreamTicker(t)).slice(0, LAST_WATCHLIST_MAX + 1);
		expect(tooMany).toHaveLength(LAST_WATCHLIST_MAX + 1);
		expect(() => rememberWatchlist(tooMany)).toThrow(/at most 20/);
		rememberWatchlist(['IWM', 'TSLA'], 2_000);
		expect(readLastWatchlist()?.tickers).toEqual(['IWM', 'TSLA']);
	});

	it('does not override a list saved on the Account page', () => {
		writeFileSync(
			join(dataDir, 'recording.json'),
			JSON.stringify({ version: 1, alwaysRecord: ['SPY'], retentionDays: 20, maxBytes: 5e9 })
		);
		expect(rememberWatchlist(['QQQ'], 3_000)).toEqual({ tickers: ['SPY'], source: 'saved' });
		expect(readLastWatchlist()?.tickers).toEqual(['QQQ']);
		// Following the watchlist again (alwaysRecord: null) brings the last one back.
		writeFileSync(
			join(dataDir, 'recording.json'),
			JSON.stringify({ version: 1, alwaysRecord: null, retentionDays: 20, maxBytes: 5e9 })
		);
		expect(currentAlwaysRecord()).toEqual({
			tickers: ['QQQ'],
			source: 'watchlist',
			openedAt: 3_000
		});
	});
});

describe('bad or oversized lists', () => {
	it('a corrupt last watchlist is set aside once (one copy) and forgotten; reads go on', () => {
		const file = join(dataDir, 'last-watchlist.json');
		writeFileSync(file, '{"tickers": [');
		const copies = () =>
			readdirSync(dataDir).filter((f) => f.includes('last-watchlist.json.corrupt-'));
		for (let i = 0; i < 5; i++) expect(readLastWatchlist()).toBeUndefined();
		expect(copies()).toHaveLength(1);
		expect(existsSync(file)).toBe(false);
		expect(currentAlwaysRecord().source).not.toBe('watchlist');
	});

	it("the Account page's always-record list holds at most 20 tickers, with a clear error", () => {
		expect(ALWAYS_RECORD_MAX).toBe(20);
		const tooMany = ALL_TICKERS.filter((t) => isStreamTicker(t)).slice(0, ALWAYS_RECORD_MAX + 1);
		expect(() =>
			updateRecordingSettings({ alwaysRecord: tooMany, retentionDays: 20, maxBytes: 5e9 })
		).toThrow(/Always record holds at most 20 tickers \(21 given\)/);
		// A hand-edited file holding more is read as its first 20.
		writeFileSync(
			join(dataDir, 'recording.json'),
			JSON.stringify({ version: 1, alwaysRecord: tooMany, retentionDays: 20, maxBytes: 5e9 })
		);
		expect(currentAlwaysRecord().tickers).toHaveLength(ALWAYS_RECORD_MAX);
	});
});
