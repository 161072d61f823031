/**
 * The service's cache of generated ticker-days on disk, bounded: at most `maxDays` ticker-days
 * and `maxBytes` of day files, the least recently used removed first (a day is used when it is
 * generated or asked for; its manifest's mtime records that, so the order survives a restart).
 * A whole SPX day is about 300 MB and any of 90 days x every ticker may be asked for, so an
 * unbounded cache filled the disk at the rate users browsed.
 */
import { readdir, readFile, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { MANIFEST, type DayManifest } from './tickerDayFiles';

export interface DayCacheLimits {
	/** Ticker-days kept (default 40). */
	maxDays: number;
	/** Bytes of day files kept (default 4 GB). */
	maxBytes: number;
}

export const DEFAULT_DAY_CACHE_LIMITS: DayCacheLimits = { maxDays: 40, maxBytes: 4 * 1024 ** 3 };

export interface CachedDay {
	/** The ticker-day's folder. */
	dir: string;
	bytes: number;
	usedAt: number;
}

/** Every complete ticker-day under `folder` (`<date>/<ticker>/manifest.json`). */
export async function cachedDays(folder: string): Promise<CachedDay[]> {
	const out: CachedDay[] = [];
	for (const date of await readdir(folder).catch(() => [] as string[])) {
		for (const ticker of await readdir(join(folder, date)).catch(() => [] as string[])) {
			const dir = join(folder, date, ticker);
			try {
				const manifestPath = join(dir, MANIFEST);
				const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as DayManifest;
				const bytes = Object.values(manifest.members ?? {}).reduce((n, m) => n + (m?.size ?? 0), 0);
				out.push({ dir, bytes, usedAt: (await stat(manifestPath)).mtimeMs });
			} catch {
				// Not a complete day (being written, or a leftover): not the cache's to count.
			}
		}
	}
	return out;
}

/** The folders to remove, least recently used first, never one of `keep`. */
export function daysToEvict(
	days: readonly CachedDay[],
	limits: DayCacheLimits,
	keep: ReadonlySet<string>
): string[] {
	const order = [...days].sort((a, b) => a.usedAt - b.usedAt);
	let count = order.length;
	let bytes = order.reduce((n, d) => n + d.bytes, 0);
	const out: string[] = [];
	for (const d of order) {
		if (count <= limits.maxDays && bytes <= limits.maxBytes) break;
		if (keep.has(d.dir)) continue;
		out.push(d.dir);
		count--;
		bytes -= d.bytes;
	}
	return out;
}

/** Removes what daysToEvict picks under `folder`; returns the removed folders. */
export async function evictDays(
	folder: string,
	limits: DayCacheLimits,
	keep: ReadonlySet<string>
): Promise<string[]> {
	const removed = daysToEvict(await cachedDays(folder), limits, keep);
	for (const dir of removed) await rm(dir, { recursive: true, force: true });
	return removed;
}

/** Marks a ticker-day used now (its manifest's mtime); a missing day is no error. */
export async function touchDay(dir: string, now = new Date()): Promise<void> {
	await utimes(join(dir, MANIFEST), now, now).catch(() => undefined);
}

/**
 * The manifests of the complete days seen (small: a few hundred bytes each, at most 2,000 held)
 * and the cache's limits over their folders: a day read or generated is marked used (at most
 * once a minute per day), and evict() removes the least recently used beyond the limits.
 */
export class DayManifests {
	private readonly held = new Map<string, { manifest: DayManifest; dir: string; at: number }>();

	constructor(
		private readonly folder: string,
		private readonly limits: DayCacheLimits
	) {}

	get(key: string): DayManifest | undefined {
		const hit = this.held.get(key);
		if (hit && hit.at < Date.now() - 60_000) {
			hit.at = Date.now();
			void touchDay(hit.dir);
		}
		return hit?.manifest;
	}

	async remember(key: string, dir: string, manifest: DayManifest): Promise<void> {
		this.held.delete(key);
		this.held.set(key, { manifest, dir, at: Date.now() });
		while (this.held.size > 2000) this.held.delete(this.held.keys().next().value as string);
		await touchDay(dir);
	}

	/** Holds the limits, keeping the day folders of `keep`; forgets what was removed. */
	async evict(keep: ReadonlySet<string>): Promise<string[]> {
		const removed = await evictDays(this.folder, this.limits, keep);
		const gone = new Set(removed);
		for (const [key, { dir }] of this.held) if (gone.has(dir)) this.held.delete(key);
		return removed;
	}
}
