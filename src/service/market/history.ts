/**
 * History days (GET /v2/hist/...): a JSON array of one (ticker, category)'s per-second
 * snapshots from 09:30:00 to 16:00:00 ET. Because the model is deterministic in (seed, date), a
 * day is produced by re-running the engine for that ticker with the live loop's own code, which
 * gives byte-for-byte the payloads the live loop published; complete days are cached as gzip in
 * the data directory. The live session's day so far is regenerated up to the live second.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzip, gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { isCalendarDate } from '../../lib/contract/dates';
import { HistoryUnavailableError, type CanonicalCategory, type PackageName } from '../source';
import { SESSION_SECONDS, daysBetween, etParts, isTradingDay, marketPosition } from './clock';
import { viewOf } from './universe';
import { categoryValue } from '../engine/snapshot';
import { TickerDay } from '../engine/tickerDay';
import { viewFormatAt } from '../engine/live';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** The history window: dates older than this many days are refused. */
export const HISTORY_WINDOW_DAYS = 90;

const PACKAGE_CATEGORIES: Record<PackageName, (c: string) => boolean> = {
	classic: (c) => c.startsWith('gex_'),
	state: (c) => c !== 'orderflow',
	orderflow: (c) => c === 'orderflow'
};

function yieldToLoop(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs the engine for `ticker` on `date` from the open through `endTick`, serialising
 * `category` at every second. Yields to the event loop every ~40 ms so serving goes on.
 */
export async function generateDay(
	seed: number,
	ticker: string,
	category: CanonicalCategory,
	date: string,
	endTick: number = SESSION_SECONDS,
	signal?: AbortSignal
): Promise<Buffer> {
	const view = viewOf(ticker);
	if (!view) throw new HistoryUnavailableError(`Unknown ticker ${ticker}.`, 404);
	const day = new TickerDay(seed, view.source, date);
	// GEX categories need only gamma across the chain (see TickerDay.step).
	const mode = category.startsWith('gex_') ? 'gamma' : 'rings';
	let out = Buffer.allocUnsafe(1 << 20);
	let used = 0;
	const write = (text: string) => {
		// Grow geometrically; one big buffer instead of 23,401 small ones.
		while (used + text.length * 3 > out.length) {
			const bigger = Buffer.allocUnsafe(out.length * 2);
			out.copy(bigger, 0, 0, used);
			out = bigger;
		}
		used += out.write(text, used);
	};
	write('[');
	let slice = performance.now();
	while (day.tick < endTick) {
		day.step(mode);
		const value = categoryValue(day, category, viewFormatAt(seed, ticker, date, day.tick));
		if (day.tick > 0) write(',');
		write(JSON.stringify(value));
		if (performance.now() - slice > 40) {
			await yieldToLoop();
			if (signal?.aborted) throw new HistoryUnavailableError('History generation aborted.', 503);
			slice = performance.now();
		}
	}
	write(']');
	return Buffer.from(out.subarray(0, used));
}

export interface HistoryStoreOptions {
	seed: number;
	dataDir: string;
	waitMs: number;
	now: () => number;
	live: { liveTick(date: string): number | undefined };
}

export class HistoryStore {
	private readonly inflight = new Map<string, Promise<Buffer>>();
	private readonly recent = new Map<string, Buffer>();

	constructor(private readonly options: HistoryStoreOptions) {}

	async init(): Promise<void> {
		await mkdir(join(this.options.dataDir, 'history'), { recursive: true });
	}

	private file(ticker: string, category: string, date: string): string {
		return join(this.options.dataDir, 'history', date, ticker, `${category}.json.gz`);
	}

	async get(
		ticker: string,
		pkg: PackageName,
		category: CanonicalCategory,
		date: string,
		signal?: AbortSignal
	): Promise<Buffer> {
		if (!viewOf(ticker)) throw new HistoryUnavailableError(`Unknown ticker ${ticker}.`, 404);
		if (!PACKAGE_CATEGORIES[pkg]?.(category))
			throw new HistoryUnavailableError(`Category ${category} is not part of package ${pkg}.`, 400);
		if (!isCalendarDate(date))
			throw new HistoryUnavailableError(`Invalid date ${date}; use YYYY-MM-DD.`, 400);
		const nowMs = this.options.now();
		const today = etParts(nowMs).date;
		const age = daysBetween(date, today);
		if (age > HISTORY_WINDOW_DAYS)
			throw new HistoryUnavailableError(
				`Date ${date} is older than ${HISTORY_WINDOW_DAYS} days.`,
				400
			);
		if (age < 0) throw new HistoryUnavailableError(`No history for future date ${date}.`, 404);
		if (!isTradingDay(date)) throw new HistoryUnavailableError(`No session on ${date}.`, 404);

		const pos = marketPosition(nowMs);
		let endTick = SESSION_SECONDS;
		if (date === today && pos.date === today && pos.open) endTick = pos.tick;
		else if (date === today && pos.date !== today)
			throw new HistoryUnavailableError(`The ${date} session has not opened yet.`, 404);
		const complete = endTick === SESSION_SECONDS;
		const key = `${ticker}|${category}|${date}|${endTick}`;
		const cached = this.recent.get(key);
		if (cached) return cached;

		let job = this.inflight.get(key);
		if (!job) {
			job = this.load(ticker, category, date, endTick, complete);
			this.inflight.set(key, job);
			void job
				.then((buf) => {
					this.remember(key, buf);
				})
				.catch(() => undefined)
				.finally(() => this.inflight.delete(key));
		}
		return this.bounded(job, signal);
	}

	private remember(key: string, buf: Buffer): void {
		this.recent.set(key, buf);
		while (this.recent.size > 4) this.recent.delete(this.recent.keys().next().value as string);
	}

	private async load(
		ticker: string,
		category: CanonicalCategory,
		date: string,
		endTick: number,
		complete: boolean
	): Promise<Buffer> {
		const file = this.file(ticker, category, date);
		if (complete) {
			try {
				return await gunzipAsync(await readFile(file));
			} catch {
				// not cached yet (or unreadable): generate below
			}
		}
		const body = await generateDay(this.options.seed, ticker, category, date, endTick);
		if (complete) {
			await mkdir(join(file, '..'), { recursive: true });
			const tmp = `${file}.${process.pid}.tmp`;
			await writeFile(tmp, await gzipAsync(body, { level: 6 }));
			await rename(tmp, file);
		}
		return body;
	}

	/** Wait for a generation, at most waitMs; the generation itself goes on and is cached. */
	private bounded(job: Promise<Buffer>, signal?: AbortSignal): Promise<Buffer> {
		return new Promise<Buffer>((resolve, reject) => {
			const timer = setTimeout(() => {
				cleanup();
				reject(
					new HistoryUnavailableError(
						'History for that day is still being generated; retry in a minute.',
						504
					)
				);
			}, this.options.waitMs);
			const onAbort = () => {
				cleanup();
				reject(new HistoryUnavailableError('Request aborted.', 503));
			};
			const cleanup = () => {
				clearTimeout(timer);
				signal?.removeEventListener('abort', onAbort);
			};
			signal?.addEventListener('abort', onAbort, { once: true });
			job.then(
				(buf) => {
					cleanup();
					resolve(buf);
				},
				(err: unknown) => {
					cleanup();
					reject(err instanceof Error ? err : new Error(String(err)));
				}
			);
		});
	}
}
