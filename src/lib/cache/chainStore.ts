/**
 * The chain imported on /chain, kept in this browser's IndexedDB (the `chains` store) so a reload
 * finds it again. Nothing here leaves the device. A storage failure is reported to the caller
 * (the page says the chain will not survive a reload) and never breaks the analysis.
 */
import type { StoredChain } from './schema';
import { cacheDb } from './snapshotCache.svelte';

const KEY = 'current';

export async function saveChain(name: string, text: string): Promise<boolean> {
	try {
		const db = await cacheDb();
		if (!db) return false;
		await db.put('chains', { id: KEY, name, text, savedAt: Date.now() });
		return true;
	} catch {
		return false;
	}
}

export async function loadChain(): Promise<StoredChain | undefined> {
	try {
		return await (await cacheDb())?.get('chains', KEY);
	} catch {
		return undefined;
	}
}

export async function forgetChain(): Promise<void> {
	try {
		await (await cacheDb())?.delete('chains', KEY);
	} catch {
		// Nothing stored or no storage: nothing to forget.
	}
}
