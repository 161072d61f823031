/**
 * Which tickers the server records when no tab is open: each user's list (a list saved on their
 * Account page wins, else the watchlist they last opened, reported by the watchlist page), the
 * recorder recording the union of the enabled users' lists, a fresh install's default before
 * anyone chose. On both engines: the union, a disabled user, the import of the single list of the
 * release before as the first admin's, and an older release's files.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { useDatabases } from '../../../../tests/support/databases';
import { ALL_TICKERS, isStreamTicker } from '../../contract/tickers';
import { openDatabase } from '../db/index';
import { openRecords } from '../db/legacyImport';
import { UserStore } from '../users/userStore';
import { addUser } from '../users/teams';
import {
	LAST_WATCHLIST_ROW,
	loadRecordingStore,
	RECORDING_ROW,
	writeJsonRow
} from './recordingStore';

const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-always-'));
vi.mock('$env/dynamic/private', () => ({ env: { GEXDECK_DATA_DIR: dataDir } }));

const {
	DEFAULT_ALWAYS_RECORD,
	LAST_WATCHLIST_MAX,
	ALWAYS_RECORD_MAX,
	alwaysRecordList,
	alwaysRecordLists,
	alwaysRecordOf,
	currentAlwaysRecord,
	rememberWatchlist,
	saveAlwaysRecord
} = await import('./recorderMount');

const engines = useDatabases();
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const PASSWORD = 'a long password';
const CLI = { name: 'cli', address: null };

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

describe.each(engines)('each user’s always-record list on $engine', ({ target }) => {
	it('a fresh install records the default; the implicit admin’s watchlist then', async () => {
		const t = await target();
		const db = await openDatabase(t);
		await loadRecordingStore(db);
		expect(await currentAlwaysRecord()).toEqual({
			tickers: DEFAULT_ALWAYS_RECORD,
			source: 'default'
		});
		const effective = await rememberWatchlist('', [' iwm', 'TSLA', 'IWM'], 1_000);
		expect(effective).toEqual({ tickers: ['IWM', 'TSLA'], source: 'watchlist', openedAt: 1_000 });
		expect(await currentAlwaysRecord()).toEqual({ tickers: ['IWM', 'TSLA'], source: 'users' });
		// Kept in the database: a restart (another process) finds it.
		const again = await openDatabase(t);
		await loadRecordingStore(again);
		expect((await alwaysRecordOf('')).list.tickers).toEqual(['IWM', 'TSLA']);
		await again.close();
		await db.close();
	});

	it('records the union of the enabled users’ lists (by name), once per ticker', async () => {
		const db = await openDatabase(await target());
		await loadRecordingStore(db);
		const users = new UserStore(db);
		const tom = await users.add('tom', 'trader', PASSWORD);
		const tia = await users.add('tia', 'trader', PASSWORD);
		await saveAlwaysRecord(tom.id, ['spy', 'QQQ']);
		expect(await rememberWatchlist(tia.id, ['QQQ', 'IWM'], 5)).toMatchObject({
			tickers: ['QQQ', 'IWM'],
			source: 'watchlist'
		});
		// A watchlist does not override a saved list; each sees only their own.
		expect(await rememberWatchlist(tom.id, ['TSLA'], 6)).toEqual({
			tickers: ['SPY', 'QQQ'],
			source: 'saved'
		});
		expect((await alwaysRecordOf(tia.id)).list.tickers).toEqual(['QQQ', 'IWM']);
		expect(await currentAlwaysRecord()).toEqual({
			tickers: ['QQQ', 'IWM', 'SPY'],
			source: 'users'
		});
		// Following the watchlist again brings tom's last one back.
		await saveAlwaysRecord(tom.id, null);
		expect((await alwaysRecordOf(tom.id)).list).toEqual({
			tickers: ['TSLA'],
			source: 'watchlist',
			openedAt: 6
		});
		expect((await currentAlwaysRecord()).tickers).toEqual(['QQQ', 'IWM', 'TSLA']);

		// A disabled user's list stops counting (and counts again when enabled).
		await users.setDisabled('tia', true);
		expect((await currentAlwaysRecord()).tickers).toEqual(['TSLA']);
		expect((await alwaysRecordLists()).map((l) => [l.name, l.counts])).toEqual([
			['tia', false],
			['tom', true]
		]);
		await users.setDisabled('tia', false);
		expect((await currentAlwaysRecord()).tickers).toEqual(['QQQ', 'IWM', 'TSLA']);
		await db.close();
	});

	it('refuses unknown tickers and over-long lists, keeping the last list', async () => {
		const db = await openDatabase(await target());
		await loadRecordingStore(db);
		await rememberWatchlist('', ['IWM', 'TSLA'], 2_000);
		await expect(rememberWatchlist('', ['SPX', 'NOPE'])).rejects.toThrow(/Unknown tickers: NOPE/);
		const tooMany = ALL_TICKERS.filter((t) => isStreamTicker(t)).slice(0, LAST_WATCHLIST_MAX + 1);
		expect(tooMany).toHaveLength(LAST_WATCHLIST_MAX + 1);
		await expect(rememberWatchlist('', tooMany)).rejects.toThrow(/at most 20/);
		expect(ALWAYS_RECORD_MAX).toBe(20);
		await expect(saveAlwaysRecord('', tooMany)).rejects.toThrow(
			/Always record holds at most 20 tickers \(21 given\)/
		);
		expect((await alwaysRecordOf('')).list.tickers).toEqual(['IWM', 'TSLA']);
		await db.close();
	});

	it('imports the single list of the release before as the first admin’s, once', async () => {
		const db = await openDatabase(await target());
		await writeJsonRow(db, RECORDING_ROW, { alwaysRecord: ['RUT'], retentionDays: 9 });
		await writeJsonRow(db, LAST_WATCHLIST_ROW, { tickers: ['IWM'], openedAt: 7 });
		const ann = await new UserStore(db).add('ann', 'admin', PASSWORD);
		await loadRecordingStore(db);
		const mine = await alwaysRecordOf(ann.id);
		expect(mine.list).toEqual({ tickers: ['RUT'], source: 'saved' });
		expect(mine.last).toEqual({ version: 1, tickers: ['IWM'], openedAt: 7 });
		await saveAlwaysRecord(ann.id, ['SPX']);
		await loadRecordingStore(db);
		expect((await alwaysRecordOf(ann.id)).list.tickers).toEqual(['SPX']);
		await db.close();
	});

	it('without users the list is the implicit admin’s, the first admin’s once added', async () => {
		const db = await openDatabase(await target());
		await writeJsonRow(db, RECORDING_ROW, { alwaysRecord: ['RUT'], retentionDays: 9 });
		await loadRecordingStore(db);
		expect((await alwaysRecordOf('')).list.tickers).toEqual(['RUT']);
		await addUser(db, CLI, 'tom', 'trader', PASSWORD);
		// A trader starts teams mode: the implicit admin's list no longer counts, nor is it tom's.
		expect((await currentAlwaysRecord()).tickers).toEqual([]);
		const ann = await addUser(db, CLI, 'ann', 'admin', PASSWORD);
		expect((await alwaysRecordOf(ann.id)).list.tickers).toEqual(['RUT']);
		expect((await currentAlwaysRecord()).tickers).toEqual(['RUT']);
		await db.close();
	});
});

describe('an older release’s files', () => {
	it('are imported; a corrupt last watchlist is set aside (one copy) and forgotten', async () => {
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
		expect((await alwaysRecordOf('')).last).toBeUndefined();
		expect(await currentAlwaysRecord()).toEqual({ tickers: ['RUT'], source: 'users' });
		expect(existsSync(join(old, 'recording.json.imported'))).toBe(true);
		await records.close();
		rmSync(old, { recursive: true, force: true });
	});
});
