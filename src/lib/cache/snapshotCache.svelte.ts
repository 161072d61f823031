/**
 * The browser's IndexedDB cache of the last snapshot of every route viewed, so a reload paints
 * at once (marked stale until fresh data arrives) and the last data stays readable offline.
 * Any storage failure (private mode, quota exceeded, an upgrade blocked by another tab) turns the
 * cache off for the session with a notice and the page works from the network only; it never
 * breaks or stalls a page. Nothing here leaves the browser.
 */
import { openDB, type IDBPDatabase } from 'idb';
import { DB_NAME, DB_VERSION, upgrade, type CachedSnapshot, type GexdeckDB } from './schema';

/** Routes kept at most; the least recently saved are evicted. */
const MAX_ROUTES = 200;

/** Shown by the layout when the cache had to be turned off. */
export const cacheStatus = $state({ available: true, notice: '' });

let dbPromise: Promise<IDBPDatabase<GexdeckDB> | undefined> | undefined;

function disable(err: unknown): undefined {
	cacheStatus.available = false;
	const name = err instanceof DOMException ? err.name : '';
	cacheStatus.notice =
		name === 'QuotaExceededError'
			? 'Browser storage is full: offline cache turned off for this session.'
			: name === 'TimeoutError'
				? 'Browser storage is blocked (another gexdeck tab?): offline cache turned off.'
				: 'Browser storage is unavailable (private mode?): offline cache turned off.';
	return undefined;
}

/**
 * An open that another tab blocks (it holds an older version open) would wait forever and the
 * page would wait with it: after this long the cache is turned off and the page goes to the
 * network only.
 */
const OPEN_TIMEOUT_MS = 3_000;

function openWithTimeout(): Promise<IDBPDatabase<GexdeckDB>> {
	let timedOut = false;
	const opening = openDB<GexdeckDB>(DB_NAME, DB_VERSION, {
		upgrade: (database, oldVersion, _newVersion, tx) => upgrade(database, oldVersion, tx),
		blocking: (_current, _next, event) => (event.target as IDBDatabase).close()
	});
	// A connection that arrives after the timeout is closed, not leaked.
	opening.then((database) => timedOut && database.close()).catch(() => undefined);
	return Promise.race([
		opening,
		new Promise<never>((_, reject) =>
			setTimeout(() => {
				timedOut = true;
				reject(new DOMException('IndexedDB did not open in time', 'TimeoutError'));
			}, OPEN_TIMEOUT_MS)
		)
	]);
}

function db(): Promise<IDBPDatabase<GexdeckDB> | undefined> {
	if (!dbPromise) {
		try {
			if (typeof indexedDB === 'undefined') throw new Error('no IndexedDB');
			dbPromise = openWithTimeout().catch(disable);
		} catch (err) {
			// Some private modes throw from indexedDB.open itself rather than failing the request.
			dbPromise = Promise.resolve(disable(err));
		}
	}
	return dbPromise;
}

/** The cache database (undefined when storage is unavailable), for the other stores in it. */
export { db as cacheDb };

export async function readSnapshot(route: string): Promise<CachedSnapshot | undefined> {
	if (!cacheStatus.available) return undefined;
	try {
		return await (await db())?.get('snapshots', route);
	} catch (err) {
		return disable(err);
	}
}

export async function writeSnapshot(route: string, data: unknown): Promise<void> {
	if (!cacheStatus.available) return;
	const ts = (data as { timestamp?: unknown } | null)?.timestamp;
	const entry: CachedSnapshot = {
		route,
		data,
		savedAt: Date.now(),
		dataTimestamp: typeof ts === 'number' ? ts : null
	};
	try {
		const database = await db();
		if (!database) return;
		await database.put('snapshots', entry);
		const count = await database.count('snapshots');
		if (count > MAX_ROUTES) {
			const tx = database.transaction('snapshots', 'readwrite');
			let cursor = await tx.store.index('by-savedAt').openCursor();
			for (let n = count - MAX_ROUTES; cursor && n > 0; n--) {
				await cursor.delete();
				cursor = await cursor.continue();
			}
			await tx.done;
		}
	} catch (err) {
		disable(err);
	}
}

/** The shared cache database and its off switch, for the cache's other stores (series). */
export { db as cacheDatabase, disable as disableCache };
