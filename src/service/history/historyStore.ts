/**
 * History days (GET /v2/hist/...): a JSON array of one (ticker, category)'s per-second
 * snapshots from 09:30:00 to 16:00:00 ET (13:00:00 on an early-close day). Because the model
 * is deterministic in (seed, date), a day is produced by re-running the engine for that ticker
 * with the live loop's own code, which gives byte-for-byte the payloads the live loop published.
 * A complete day is generated once for every category of its ticker and kept as gzip files in
 * the data directory (tickerDayFiles.ts), under the model version and the seed that made them;
 * the live session's day so far is regenerated in memory up to the live second.
 */
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { isCalendarDate } from '../../lib/contract/dates';
import {
	HistoryUnavailableError,
	type CanonicalCategory,
	type HistoryDayFile,
	type PackageName
} from '../source';
import {
	daysBetween,
	etParts,
	isTradingDay,
	marketPosition,
	sessionSeconds
} from '../market/clock';
import { buildChain } from '../market/chainDay';
import { GenerationQueue, type JobPriority } from './generationQueue';
import { holidayName } from '../market/holidays';
import { dayKeyOf, type DayKey } from './dayKeys';
import { dayFileName, readManifest, type DayManifest } from './tickerDayFiles';
import { DEFAULT_DAY_CACHE_LIMITS, DayManifests, type DayCacheLimits } from './dayCacheLimits';
import { writeTickerDayInProcesses } from './tickerDayProcesses';
import { viewOf } from '../market/universe';
import { DEFAULT_PAYLOAD_PROFILE, type PayloadProfile } from '../engine/profiles';
import { errorText, log } from '../../lib/server/log';
import { DayGenerator } from './dayGenerator';
import { boundedWait } from './boundedWait';

export { DayGenerator, generateDay, generateDays } from './dayGenerator';

const gunzipAsync = promisify(gunzip);

/**
 * The version of what a simulated day contains. Bump it whenever a change to the market model
 * or the engine changes any value of a past day (it was 2 when NYSE early closes moved expiry
 * settlement to 13:00; 3 when greek profiles took the observed net-value shape by default and
 * a ticker-day became one pass with a manifest; 4 when zero gamma moved to the analytics
 * engine's exact kernel): cached days of other versions are then never served, and are removed.
 */
export const HISTORY_MODEL_VERSION = 4;

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

export interface HistoryStoreOptions {
	seed: number;
	dataDir: string;
	/** Longest a request waits for a generation that is running (the client-facing bound). */
	waitMs: number;
	now: () => number;
	live: { liveTick(date: string): number | undefined };
	/** Generations running at once across the service (default 1). */
	concurrency?: number;
	/** Child processes per generation (default 1: in this process; see tickerDayProcesses.ts). */
	processes?: number;
	/** Shape of the payloads (./dayKeys.ts); default observed, as the live service. */
	profile?: PayloadProfile;
	/** Generated ticker-days kept on disk, least recently used removed first (dayCacheLimits). */
	cacheLimits?: Partial<DayCacheLimits>;
}

/** First guess of engine time per contract-second before a generation was measured (ms). */
const MS_PER_CONTRACT_SECOND = 1e-3;

/**
 * Past days as files: a request for any category of a complete day that is not on disk queues
 * the generation of the whole ticker-day (tickerDayFiles.ts), and every later request for any
 * category of it is a file read. The live day so far is generated in memory, continuing from
 * the previous request. Every generation goes through one GenerationQueue.
 */
export class HistoryStore {
	readonly queue: GenerationQueue;
	/** Manifests of complete days seen, and the on-disk cache's limits over them. */
	private readonly manifests: DayManifests;

	constructor(private readonly options: HistoryStoreOptions) {
		this.manifests = new DayManifests(
			join(options.dataDir, 'history', historyCacheFolder(options.seed)),
			{ ...DEFAULT_DAY_CACHE_LIMITS, ...options.cacheLimits }
		);
		this.queue = new GenerationQueue({
			concurrency: options.concurrency ?? 1,
			msPerUnit: MS_PER_CONTRACT_SECOND
		});
	}

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
		await this.manifests.evict(new Set());
	}

	/** The folder of one ticker-day's files (the documented profile's days are kept apart). */
	dayDir(ticker: string, date: string): string {
		const folder = historyCacheFolder(this.options.seed);
		const name = this.profile === 'documented' ? `${ticker}.documented` : ticker;
		return join(this.options.dataDir, 'history', folder, date, name);
	}

	private get profile(): PayloadProfile {
		return this.options.profile ?? DEFAULT_PAYLOAD_PROFILE;
	}

	/** Validates a request; returns the last tick the day has (the live second for today). */
	private check(
		ticker: string,
		pkg: PackageName,
		category: CanonicalCategory,
		date: string
	): number {
		if (!PACKAGE_CATEGORIES[pkg]?.(category))
			throw new HistoryUnavailableError(`Category ${category} is not part of package ${pkg}.`, 400);
		return this.checkDay(ticker, date);
	}

	private checkDay(ticker: string, date: string): number {
		if (!viewOf(ticker)) throw new HistoryUnavailableError(`Unknown ticker ${ticker}.`, 404);
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
		const key = dayKeyOf(pkg, category, this.profile);
		if (endTick < sessionSeconds(date)) return this.liveDay(ticker, key, date, endTick, signal);
		await this.day(ticker, date, 'request', signal);
		return gunzipAsync(await readFile(join(this.dayDir(ticker, date), dayFileName(key))));
	}

	/** The gzip file of a complete day's category, undefined for the live day. */
	async file(
		ticker: string,
		pkg: PackageName,
		category: CanonicalCategory,
		date: string,
		signal?: AbortSignal
	): Promise<HistoryDayFile | undefined> {
		const endTick = this.check(ticker, pkg, category, date);
		if (endTick < sessionSeconds(date)) return undefined;
		const manifest = await this.day(ticker, date, 'request', signal);
		return this.member(ticker, date, manifest, dayKeyOf(pkg, category, this.profile));
	}

	/**
	 * Several packages' categories of one complete day, from one generation (the EOD report),
	 * keyed `pkg/category`.
	 */
	async files(
		ticker: string,
		items: readonly { pkg: PackageName; category: CanonicalCategory }[],
		date: string,
		signal?: AbortSignal
	): Promise<Map<string, HistoryDayFile>> {
		for (const { pkg, category } of items) this.check(ticker, pkg, category, date);
		if (this.checkDay(ticker, date) < sessionSeconds(date))
			throw new HistoryUnavailableError(`The ${date} session is not complete yet.`, 404);
		const manifest = await this.day(ticker, date, 'request', signal);
		return new Map(
			items.map(({ pkg, category }) => [
				`${pkg}/${category}`,
				this.member(ticker, date, manifest, dayKeyOf(pkg, category, this.profile))
			])
		);
	}

	/**
	 * Queue a complete day's generation as background work (after the close), unless it is on
	 * disk already. Resolves when it is ready; failures are logged, never thrown.
	 */
	async prepare(ticker: string, date: string): Promise<void> {
		try {
			if (this.checkDay(ticker, date) < sessionSeconds(date)) return;
			const key = `day|${ticker}|${date}`;
			if (await this.known(ticker, date)) return;
			await this.queue.submit(key, 'background', this.cost(ticker, date), (progress) =>
				this.generate(ticker, date, progress)
			);
		} catch (err) {
			log.error(`background history of ${ticker} ${date} failed`, { error: errorText(err) });
		}
	}

	private member(ticker: string, date: string, manifest: DayManifest, key: DayKey): HistoryDayFile {
		const m = manifest.members[key] as { size: number; crc: number };
		return {
			file: join(this.dayDir(ticker, date), dayFileName(key)),
			size: m.size,
			crc: m.crc
		};
	}

	private async known(ticker: string, date: string): Promise<DayManifest | undefined> {
		const key = `${ticker}|${date}`;
		const cached = this.manifests.get(key);
		if (cached) return cached;
		const manifest = await readManifest(this.dayDir(ticker, date), this.profile);
		if (manifest) await this.manifests.remember(key, this.dayDir(ticker, date), manifest);
		return manifest;
	}

	/** Work units of a ticker-day, for the queue's estimates. */
	private cost(ticker: string, date: string): number {
		const source = viewOf(ticker)?.source ?? ticker;
		const key = `${source}|${date}`;
		let n = this.chainSizes.get(key);
		if (n === undefined) {
			n = buildChain(this.options.seed, source, date).n;
			if (this.chainSizes.size > 500) this.chainSizes.clear();
			this.chainSizes.set(key, n);
		}
		return n * (sessionSeconds(date) + 1);
	}

	private readonly chainSizes = new Map<string, number>();

	/** A complete day's manifest, generating the whole ticker-day once if it is not on disk. */
	private async day(
		ticker: string,
		date: string,
		priority: JobPriority,
		signal?: AbortSignal
	): Promise<DayManifest> {
		const ready = await this.known(ticker, date);
		if (ready) return ready;
		const key = `day|${ticker}|${date}`;
		const job = this.queue.submit(key, priority, this.cost(ticker, date), (progress) =>
			this.generate(ticker, date, progress)
		);
		return this.bounded(key, job, `${ticker} ${date}`, signal);
	}

	private async generate(
		ticker: string,
		date: string,
		progress: (fraction: number) => void
	): Promise<DayManifest> {
		// Written by an earlier job while this one waited (a request after a background job).
		const ready = await this.known(ticker, date);
		if (ready) return ready;
		try {
			const manifest = await writeTickerDayInProcesses(
				{
					seed: this.options.seed,
					ticker,
					date,
					dir: this.dayDir(ticker, date),
					endTick: sessionSeconds(date),
					profile: this.profile,
					onProgress: progress
				},
				{ processes: this.options.processes ?? 1 }
			);
			const dir = this.dayDir(ticker, date);
			await this.manifests.remember(`${ticker}|${date}`, dir, manifest);
			await this.manifests.evict(new Set([dir]));
			return manifest;
		} catch (err) {
			if (err instanceof HistoryUnavailableError) throw err;
			// A full or read-only disk: the request fails with a reason, the service goes on.
			log.error(`history generation of ${ticker} ${date} failed`, { error: errorText(err) });
			// The errno code only: the message would name the data folder's paths.
			const code = (err as NodeJS.ErrnoException | undefined)?.code ?? 'write error';
			throw new HistoryUnavailableError(
				`History for ${ticker} ${date} could not be written (${code}).`,
				503
			);
		}
	}

	/** The live day so far, in memory, continuing the previous request's generation. */
	private liveDay(
		ticker: string,
		category: DayKey,
		date: string,
		endTick: number,
		signal?: AbortSignal
	): Promise<Buffer> {
		const key = `live|${ticker}|${category}|${date}|${endTick}`;
		const cost = this.cost(ticker, date) * ((endTick + 1) / (sessionSeconds(date) + 1));
		const job = this.queue.submit(key, 'request', cost, async () => {
			const days = await this.generator(ticker, [category], date, endTick).extendTo(endTick);
			return days.get(category) as Buffer;
		});
		return this.bounded(key, job, `${ticker} ${date}`, signal);
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
		if (kept && kept.tick <= endTick) return kept;
		const fresh = new DayGenerator(this.options.seed, ticker, categories, date, this.profile);
		this.generators.delete(key);
		this.generators.set(key, fresh);
		while (this.generators.size > 2)
			this.generators.delete(this.generators.keys().next().value as string);
		return fresh;
	}

	/** A job waited for within the client-facing bound (boundedWait.ts). */
	private bounded<T>(key: string, job: Promise<T>, what: string, signal?: AbortSignal): Promise<T> {
		return boundedWait(this.queue, this.options.waitMs, key, job, what, signal);
	}
}
