/**
 * Named workspace layouts kept in this browser (IndexedDB `gexdeck-workspaces`, one record per
 * name: the workspace's query, as its URL carries it). A browser without IndexedDB (some private
 * modes) saves nothing and lists nothing: the URL still carries the workspace.
 */
const DB = 'gexdeck-workspaces';
const STORE = 'layouts';

export interface SavedLayout {
	name: string;
	query: string;
	saved: number;
}

function open(): Promise<IDBDatabase> {
	return new Promise((resolve, reject) => {
		const req = indexedDB.open(DB, 1);
		req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: 'name' });
		req.onsuccess = () => resolve(req.result);
		req.onerror = () => reject(req.error ?? new Error('IndexedDB open failed'));
	});
}

async function run<T>(
	mode: IDBTransactionMode,
	op: (store: IDBObjectStore) => IDBRequest<T>
): Promise<T> {
	const db = await open();
	try {
		return await new Promise<T>((resolve, reject) => {
			const req = op(db.transaction(STORE, mode).objectStore(STORE));
			req.onsuccess = () => resolve(req.result);
			req.onerror = () => reject(req.error ?? new Error('IndexedDB request failed'));
		});
	} finally {
		db.close();
	}
}

export async function listLayouts(): Promise<SavedLayout[]> {
	const all = await run<SavedLayout[]>('readonly', (s) => s.getAll() as IDBRequest<SavedLayout[]>);
	return all.sort((a, b) => a.name.localeCompare(b.name));
}

export async function saveLayout(name: string, query: string): Promise<void> {
	await run('readwrite', (s) => s.put({ name, query, saved: Date.now() } satisfies SavedLayout));
}

export async function deleteLayout(name: string): Promise<void> {
	await run('readwrite', (s) => s.delete(name));
}
