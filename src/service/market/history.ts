/**
 * History days (GET /v2/hist/...): a JSON array of one (ticker, category)'s per-second
 * snapshots from 09:30:00 to 16:00:00 ET (13:00:00 on an early-close day). Because the model
 * is deterministic in (seed, date), a day is produced by re-running the engine for that ticker
 * with the live loop's own code, which gives byte-for-byte the payloads the live loop published;
 * complete days are cached as gzip in the data directory, under the model version and the seed
 * that made them. The live session's day so far is regenerated up to the live second.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzip, gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { isCalendarDate } from '../../lib/contract/dates';
import { HistoryUnavailableError, type CanonicalCategory, type PackageName } from '../source';
import { daysBetween, etParts, isTradingDay, marketPosition, sessionSeconds } from './clock';
import { holidayName } from './holidays';
import { viewOf } from './universe';
import { categoryValue } from '../engine/snapshot';
import { TickerDay } from '../engine/tickerDay';
import { viewFormatAt } from '../engine/live';
import {
	DEFAULT_PAYLOAD_PROFILE,
	observedStateChain,
	type PayloadProfile
} from '../engine/profiles';
import type { GexChainValue } from '../engine/payloads';
import type { ViewFormat } from '../engine/views';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/**
 * The version of what a simulated day contains. Bump it whenever a change to the market model
 * or the engine changes any value of a past day (it was 2 when NYSE early closes moved expiry
 * settlement to 13:00; 3 when greek profiles took the observed net-value shape by default):
 * cached days of other versions are then never served, and are removed.
 */
export const HISTORY_MODEL_VERSION = 3;

/** The cache folder of one model version and seed, under `<dataDir>/history`. */
export function historyCacheFolder(seed: number): string {
	return `model-${HISTORY_MODEL_VERSION}-seed-${seed}`;
}

/** The history window: dates older than this many days are refused. */
export const HISTORY_WINDOW_DAYS = 90;

const PACKAGE_CATEGORIES: Record<PackageName, (c: string) => boolean> = {
	classic: (c) => c.startsWith('gex_'),
	state: (c) => c !== 'orderflow',
	orderflow: (c) => c === 'orderflow'
};

/**
 * What one generated day file holds: a category's payload, or (`state_gex_*`) the State shape of
 * a GEX chain when it differs from the classic one (the observed profile's zero OI side).
 */
export type DayKey = CanonicalCategory | `state_${CanonicalCategory}`;

/** The day file a package's category is served from under `profile`. */
export function dayKeyOf(
	pkg: PackageName,
	category: CanonicalCategory,
	profile: PayloadProfile = DEFAULT_PAYLOAD_PROFILE
): DayKey {
	return pkg === 'state' && category.startsWith('gex_') && profile === 'observed'
		? `state_${category}`
		: category;
}

function yieldToLoop(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A JSON array written into 4 MB chunks (a day is about 10^5 records of a few KB; 15 categories
 * of an index day must not each hold a doubled buffer), joined once at the end.
 */
const CLOSE = Buffer.from(']');

class ArrayWriter {
	private static readonly CHUNK = 4 << 20;
	private readonly chunks: Buffer[] = [];
	private current = Buffer.allocUnsafe(ArrayWriter.CHUNK);
	private used = 0;
	private count = 0;

	constructor() {
		this.write('[');
	}

	push(json: string): void {
		if (this.count++ > 0) this.write(',');
		this.write(json);
	}

	/** The array so far, closed (the writer can go on appending). */
	snapshot(): Buffer {
		return Buffer.concat([...this.chunks, this.current.subarray(0, this.used), CLOSE]);
	}

	private write(text: string): void {
		const worst = text.length * 3;
		if (this.used + worst > this.current.length) {
			this.chunks.push(this.current.subarray(0, this.used));
			this.current = Buffer.allocUnsafe(Math.max(ArrayWriter.CHUNK, worst));
			this.used = 0;
		}
		this.used += this.current.write(text, this.used);
	}
}

/**
 * Runs the engine for one ticker and day, serialising `categories` at every second, and can be
 * extended later: a request for the live day generates up to the live second, and the next one
 * continues from there instead of starting again at the open.
 */
export class DayGenerator {
	private readonly day: TickerDay;
	private readonly mode: 'gamma' | 'rings';
	private readonly writers: ArrayWriter[];
	private chain: Promise<unknown> = Promise.resolve();

	constructor(
		private readonly seed: number,
		readonly ticker: string,
		readonly categories: readonly DayKey[],
		readonly date: string,
		private readonly profile: PayloadProfile = DEFAULT_PAYLOAD_PROFILE
	) {
		const view = viewOf(ticker);
		if (!view) throw new HistoryUnavailableError(`Unknown ticker ${ticker}.`, 404);
		this.day = new TickerDay(seed, view.source, date);
		// GEX categories need only gamma across the chain (see TickerDay.step).
		this.mode = categories.every((c) => c.replace(/^state_/, '').startsWith('gex_'))
			? 'gamma'
			: 'rings';
		this.writers = categories.map(() => new ArrayWriter());
	}

	/** One day key's value at the current tick. */
	private valueOf(key: DayKey, format: ViewFormat): unknown {
		if (key.startsWith('state_')) {
			const chain = categoryValue(this.day, key.slice(6) as CanonicalCategory, format);
			return observedStateChain(chain as GexChainValue);
		}
		return categoryValue(this.day, key as CanonicalCategory, format, this.profile);
	}

	/** Last generated tick (-1 before the open). */
	get tick(): number {
		return this.day.tick;
	}

	/** Every category's array from the open through `endTick` (calls are serialised). */
	extendTo(endTick: number, signal?: AbortSignal): Promise<Map<DayKey, Buffer>> {
		const run = this.chain.then(() => this.run(endTick, signal));
		this.chain = run.catch(() => undefined);
		return run;
	}

	private async run(endTick: number, signal?: AbortSignal): Promise<Map<DayKey, Buffer>> {
		const { day, seed, ticker, date } = this;
		let slice = performance.now();
		// The day ends at its close tick (13:00 on an early close) whatever end was asked for.
		while (day.tick < endTick && day.step(this.mode)) {
			const format = viewFormatAt(seed, ticker, date, day.tick);
			this.categories.forEach((category, i) =>
				this.writers[i].push(JSON.stringify(this.valueOf(category, format)))
			);
			if (performance.now() - slice > 40) {
				await yieldToLoop();
				if (signal?.aborted) throw new HistoryUnavailableError('History generation aborted.', 503);
				slice = performance.now();
			}
		}
		return new Map(this.categories.map((c, i) => [c, this.writers[i].snapshot()]));
	}
}

/** Every category of `categories` for one day through `endTick`, in one engine pass. */
export function generateDays(
	seed: number,
	ticker: string,
	categories: readonly DayKey[],
	date: string,
	endTick: number = sessionSeconds(date),
	signal?: AbortSignal,
	profile: PayloadProfile = DEFAULT_PAYLOAD_PROFILE
): Promise<Map<DayKey, Buffer>> {
	return new DayGenerator(seed, ticker, categories, date, profile).extendTo(endTick, signal);
}

/** One category's day (see generateDays). */
export async function generateDay(
	seed: number,
	ticker: string,
	category: CanonicalCategory,
	date: string,
	endTick: number = sessionSeconds(date),
	signal?: AbortSignal
): Promise<Buffer> {
	const days = await generateDays(seed, ticker, [category], date, endTick, signal);
	return days.get(category) as Buffer;
}

export interface HistoryStoreOptions {
	seed: number;
	dataDir: string;
	waitMs: number;
	now: () => number;
	live: { liveTick(date: string): number | undefined };
	/** Shape of the greek profiles (State chains share the classic day file). */
	profile?: PayloadProfile;
}

export class HistoryStore {
	private readonly inflight = new Map<string, Promise<Buffer>>();
	private readonly recent = new Map<string, Buffer>();

	constructor(private readonly options: HistoryStoreOptions) {}

	async init(): Promise<void> {
		const root = join(this.options.dataDir, 'history');
		await mkdir(join(root, historyCacheFolder(this.options.seed)), { recursive: true });
		// Days cached by another model version (or by the unversioned layout, `history/<date>`)
		// hold values this model would not produce: drop them. Other seeds of this version stay.
		for (const entry of await readdir(root)) {
			const version = /^model-(\d+)-seed-\d+$/.exec(entry)?.[1];
			if (version === String(HISTORY_MODEL_VERSION)) continue;
			if (version !== undefined || isCalendarDate(entry)) {
				await rm(join(root, entry), { recursive: true, force: true });
			}
		}
	}

	private file(ticker: string, category: string, date: string): string {
		const folder = historyCacheFolder(this.options.seed);
		// Greek days differ by payload profile; the documented ones are kept apart (the observed
		// State chains have their own `state_gex_*` files).
		const documented = this.options.profile === 'documented' && !/^(gex_|orderflow)/.test(category);
		const name = documented ? `${category}.documented.json.gz` : `${category}.json.gz`;
		return join(this.options.dataDir, 'history', folder, date, ticker, name);
	}

	/** Validates a request; returns the last tick the day has (the live second for today). */
	private check(
		ticker: string,
		pkg: PackageName,
		category: CanonicalCategory,
		date: string
	): number {
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
		if (!isTradingDay(date)) {
			const holiday = holidayName(date);
			throw new HistoryUnavailableError(
				holiday
					? `No session on ${date}: the exchange is closed for ${holiday}.`
					: `No session on ${date}: it is a weekend day.`,
				404
			);
		}
		const pos = marketPosition(nowMs);
		if (date === today && pos.date !== today)
			throw new HistoryUnavailableError(`The ${date} session has not opened yet.`, 404);
		return date === today && pos.open ? pos.tick : sessionSeconds(date);
	}

	async get(
		ticker: string,
		pkg: PackageName,
		category: CanonicalCategory,
		date: string,
		signal?: AbortSignal
	): Promise<Buffer> {
		const endTick = this.check(ticker, pkg, category, date);
		const dayKey = dayKeyOf(pkg, category, this.options.profile);
		const key = `${ticker}|${dayKey}|${date}|${endTick}`;
		const cached = this.recent.get(key);
		if (cached) return cached;
		let job = this.inflight.get(key);
		if (!job) {
			job = this.load(ticker, [dayKey], date, endTick).then((m) => m.get(dayKey) as Buffer);
			this.track(key, job);
		}
		return this.bounded(job, signal);
	}

	/** Several categories of one day from one engine pass (the EOD report's 15 members). */
	async getMany(
		ticker: string,
		items: readonly { pkg: PackageName; category: CanonicalCategory }[],
		date: string,
		signal?: AbortSignal
	): Promise<Map<string, Buffer>> {
		let endTick = sessionSeconds(date);
		for (const { pkg, category } of items) endTick = this.check(ticker, pkg, category, date);
		const keyOf = (i: { pkg: PackageName; category: CanonicalCategory }) =>
			dayKeyOf(i.pkg, i.category, this.options.profile);
		const categories = [...new Set(items.map(keyOf))].sort();
		const key = `${ticker}|${categories.join(',')}|${date}|${endTick}`;
		let job = this.inflightMany.get(key);
		if (!job) {
			job = this.load(ticker, categories, date, endTick);
			this.inflightMany.set(key, job);
			void job.catch(() => undefined).finally(() => this.inflightMany.delete(key));
		}
		const days = await this.bounded(job, signal);
		return new Map(items.map((i) => [`${i.pkg}/${i.category}`, days.get(keyOf(i)) as Buffer]));
	}

	private readonly inflightMany = new Map<string, Promise<Map<DayKey, Buffer>>>();

	private track(key: string, job: Promise<Buffer>): void {
		this.inflight.set(key, job);
		void job
			.then((buf) => this.remember(key, buf))
			.catch(() => undefined)
			.finally(() => this.inflight.delete(key));
	}

	private remember(key: string, buf: Buffer): void {
		this.recent.set(key, buf);
		while (this.recent.size > 4) this.recent.delete(this.recent.keys().next().value as string);
	}

	/** Cached days from the data directory, the rest generated in one pass and cached. */
	private async load(
		ticker: string,
		categories: readonly DayKey[],
		date: string,
		endTick: number
	): Promise<Map<DayKey, Buffer>> {
		const complete = endTick === sessionSeconds(date);
		const days = new Map<DayKey, Buffer>();
		if (complete) {
			for (const category of categories) {
				try {
					days.set(category, await gunzipAsync(await readFile(this.file(ticker, category, date))));
				} catch {
					// not cached yet (or unreadable): generated below
				}
			}
		}
		const missing = categories.filter((c) => !days.has(c));
		if (missing.length === 0) return days;
		const generated = await this.generator(ticker, missing, date, endTick).extendTo(endTick);
		for (const [category, body] of generated) {
			days.set(category, body);
			if (!complete) continue;
			const file = this.file(ticker, category, date);
			await mkdir(join(file, '..'), { recursive: true });
			const tmp = `${file}.${process.pid}.tmp`;
			await writeFile(tmp, await gzipAsync(body, { level: 6 }));
			await rename(tmp, file);
		}
		return days;
	}

	/** Generators of the live day, kept so the next request continues where the last one ended. */
	private readonly generators = new Map<string, DayGenerator>();

	private generator(
		ticker: string,
		categories: readonly DayKey[],
		date: string,
		endTick: number
	): DayGenerator {
		const key = `${ticker}|${date}|${categories.join(',')}`;
		const kept = this.generators.get(key);
		if (kept && kept.tick <= endTick) {
			if (endTick === sessionSeconds(date)) this.generators.delete(key);
			return kept;
		}
		const fresh = new DayGenerator(
			this.options.seed,
			ticker,
			categories,
			date,
			this.options.profile
		);
		// Only an unfinished (live) day is worth keeping; a complete one is cached on disk.
		if (endTick < sessionSeconds(date)) {
			this.generators.delete(key);
			this.generators.set(key, fresh);
			while (this.generators.size > 2)
				this.generators.delete(this.generators.keys().next().value as string);
		} else this.generators.delete(key);
		return fresh;
	}

	/** Wait for a generation, at most waitMs; the generation itself goes on and is cached. */
	private bounded<T>(job: Promise<T>, signal?: AbortSignal): Promise<T> {
		return new Promise<T>((resolve, reject) => {
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
