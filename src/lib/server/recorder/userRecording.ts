/**
 * Each user's "record even when no tab is open" choice (`user_recording`): a saved list (null:
 * follow their last watchlist) and the last watchlist they opened. The recorder records the
 * union of the lists of the users who count: enabled users, and the implicit admin ('') while the
 * dashboard has no users. One recording per ticker, whoever asked. A fresh install (no row at all)
 * records the default list.
 *
 * The single list of the release before (the `recording` and `lastWatchlist` settings rows) is
 * imported once as the first admin's (the implicit admin's without users; owners.ts hands it to
 * the first admin when teams mode starts).
 */
import type { Database, Queryable } from '../db/index';
import { firstAdminId } from '../users/owners';
import { isStreamTicker } from '../../contract/tickers';
import { LAST_WATCHLIST_ROW, RECORDING_ROW } from './recordingStore';

/** The watchlist a user last opened, as the watchlist page reported it. */
export interface LastWatchlist {
	version: 1;
	tickers: string[];
	/** When it was opened (unix ms). */
	openedAt: number;
}

/** A list in effect and why: saved on the Account page, the last watchlist, or the default. */
export interface AlwaysRecordList {
	tickers: string[];
	source: 'saved' | 'watchlist' | 'default' | 'users';
	/** For 'watchlist': when that watchlist was opened (unix ms). */
	openedAt?: number;
}

/** A fresh install's always-record list (the watchlist page's own default tickers). */
export const DEFAULT_ALWAYS_RECORD = ['SPX', 'NDX', 'RUT', 'SPY', 'QQQ'];
/** Tickers of a saved list at most (each holds stream memberships with no tab open). */
export const ALWAYS_RECORD_MAX = 20;

/** Which list records when no tab is open: an explicit list wins, then the last watchlist. */
export function alwaysRecordList(
	saved: string[] | null,
	last: LastWatchlist | undefined
): AlwaysRecordList {
	if (saved) return { tickers: saved, source: 'saved' };
	if (last) return { tickers: last.tickers, source: 'watchlist', openedAt: last.openedAt };
	return { tickers: [...DEFAULT_ALWAYS_RECORD], source: 'default' };
}

/** One user's list, with whether it counts now. */
export interface UserList {
	owner: string;
	/** The user's name (null for the implicit admin or a removed user). */
	name: string | null;
	counts: boolean;
	list: AlwaysRecordList;
	/** The last watchlist opened, even while a saved list is in effect. */
	last: LastWatchlist | undefined;
}

interface Row {
	[k: string]: string | number | null;
	owner: string;
	always_record: string | null;
	last_watchlist: string | null;
	opened_at: number | null;
	name: string | null;
	disabled: number | null;
	users: number;
}

function tickersOf(text: string | null, max: number): string[] | null {
	if (text === null) return null;
	try {
		const v = JSON.parse(text) as unknown;
		return Array.isArray(v) ? v.filter((t) => isStreamTicker(t)).slice(0, max) : null;
	} catch {
		return null;
	}
}

function listOf(r: Row): UserList {
	const lastTickers = tickersOf(r.last_watchlist, ALWAYS_RECORD_MAX);
	const last: LastWatchlist | undefined = lastTickers
		? { version: 1, tickers: lastTickers, openedAt: Number(r.opened_at) || 0 }
		: undefined;
	const counts =
		r.owner === '' ? Number(r.users) === 0 : r.name !== null && Number(r.disabled) === 0;
	return {
		owner: r.owner,
		name: r.name,
		counts,
		list: alwaysRecordList(tickersOf(r.always_record, ALWAYS_RECORD_MAX), last),
		last
	};
}

/** Every user's list (an admin's view), by name. */
export async function userLists(db: Queryable): Promise<UserList[]> {
	const rows = await db.all<Row>(
		`SELECT r.owner, r.always_record, r.last_watchlist, r.opened_at, u.name, u.disabled,
			(SELECT COUNT(*) FROM users) AS users
		FROM user_recording r LEFT JOIN users u ON u.id = r.owner ORDER BY u.name, r.owner`
	);
	return rows.map(listOf);
}

/** One user's list (their Account page, their tokens' MCP watchlist). */
export async function userList(db: Queryable, owner: string): Promise<UserList> {
	const found = (await userLists(db)).find((l) => l.owner === owner);
	return (
		found ?? {
			owner,
			name: null,
			counts: true,
			list: alwaysRecordList(null, undefined),
			last: undefined
		}
	);
}

/** What the recorder records: the union of the lists that count; the default on a fresh install. */
export function unionOf(lists: readonly UserList[]): AlwaysRecordList {
	if (lists.length === 0) return { tickers: [...DEFAULT_ALWAYS_RECORD], source: 'default' };
	const tickers = [...new Set(lists.filter((l) => l.counts).flatMap((l) => l.list.tickers))];
	return { tickers, source: 'users' };
}

/** Store `owner`'s saved list (null: follow their last watchlist). */
export async function saveUserList(db: Queryable, owner: string, tickers: string[] | null) {
	await db.run(
		`INSERT INTO user_recording (owner, always_record) VALUES (?, ?)
		ON CONFLICT (owner) DO UPDATE SET always_record = excluded.always_record`,
		[owner, tickers === null ? null : JSON.stringify(tickers)]
	);
}

/** Store the watchlist `owner` opened. */
export async function saveUserWatchlist(
	db: Queryable,
	owner: string,
	tickers: string[],
	at: number
) {
	await db.run(
		`INSERT INTO user_recording (owner, last_watchlist, opened_at) VALUES (?, ?, ?)
		ON CONFLICT (owner) DO UPDATE SET last_watchlist = excluded.last_watchlist,
			opened_at = excluded.opened_at`,
		[owner, JSON.stringify(tickers), at]
	);
}

const IMPORT_MARK = 'always-record list (settings)';

function parse(text: string | undefined): Record<string, unknown> | undefined {
	try {
		const v = text === undefined ? undefined : (JSON.parse(text) as unknown);
		return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Once per database: the single list of the release before (settings rows) becomes the first
 * admin's (or the implicit admin's). Resolves to whether a list was imported.
 */
export async function importSingleList(db: Database, now = Date.now()): Promise<boolean> {
	return db.transaction(async (tx) => {
		// Claimed, not looked up then inserted: replicas starting together on one PostgreSQL all
		// found it missing and all inserted it, and all but one failed to start on the key. The
		// other inserts wait for the first to commit, then change nothing.
		const claimed = await tx.run(
			`INSERT INTO imported_files (name, imported_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`,
			[IMPORT_MARK, now]
		);
		if (claimed === 0) return false;
		const rows = await tx.all<{ name: string; value: string }>(
			`SELECT name, value FROM settings WHERE name IN (?, ?)`,
			[RECORDING_ROW, LAST_WATCHLIST_ROW]
		);
		const value = (name: string) => parse(rows.find((r) => r.name === name)?.value);
		const saved = value(RECORDING_ROW)?.alwaysRecord;
		const last = value(LAST_WATCHLIST_ROW);
		const savedList = Array.isArray(saved) ? saved.map(String) : null;
		const lastList = Array.isArray(last?.tickers) ? (last.tickers as unknown[]).map(String) : null;
		if (!savedList && !lastList) return false;
		const owner = (await firstAdminId(tx)) ?? '';
		if (await tx.get(`SELECT owner FROM user_recording WHERE owner = ?`, [owner])) return false;
		await tx.run(
			`INSERT INTO user_recording (owner, always_record, last_watchlist, opened_at)
			VALUES (?, ?, ?, ?)`,
			[
				owner,
				savedList ? JSON.stringify(savedList) : null,
				lastList ? JSON.stringify(lastList) : null,
				lastList ? Number(last?.openedAt) || 0 : null
			]
		);
		return true;
	});
}
