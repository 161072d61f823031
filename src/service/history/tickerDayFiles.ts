/**
 * One pass over a past ticker-day: the engine steps once per second from the open to the close
 * and every day key of that ticker (./dayKeys.ts: GEX chains, the observed State GEX chains,
 * greek and volume profiles, orderflow) is serialised from the same step, exactly as the live loop publishes it, into one
 * gzip stream per category written to disk as it is produced. Nothing holds the day in memory:
 * each stream keeps a few MB of pending JSON at most, and compression runs on libuv's thread pool
 * beside the engine. The files are written under temporary names, then a manifest (member sizes
 * and CRC-32s, which the EOD zip needs in its headers) is written last: a folder with a manifest
 * is a complete day, anything else is regenerated.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32, createGzip, type Gzip } from 'node:zlib';
import { HistoryUnavailableError } from '../source';
import { TickerDay } from '../engine/tickerDay';
import { viewFormatAt } from '../engine/live';
import {
	DEFAULT_PAYLOAD_PROFILE,
	observedStateChainJson,
	type PayloadProfile
} from '../engine/profiles';
import { dayKeysOf, dayValue, stepModeOf, type DayKey } from './dayKeys';
import { viewOf } from '../market/universe';

/**
 * Deflate level of the day files: level 4 is 2.4x cheaper than zlib's default 6 for about 10%
 * more bytes on these arrays, which keeps compression of a whole SPX day behind the engine.
 */
export const DAY_GZIP_LEVEL = 4;

/** Pending JSON per category before it is handed to the compressor. */
const BATCH_CHARS = 256 << 10;
/** Bytes a compressor may have queued before the engine waits for it (memory bound). */
const MAX_QUEUED = 4 << 20;
/** Longest slice of engine work between two yields to the event loop (HTTP, the live loop). */
const SLICE_MS = 40;

export interface DayMember {
	/** Bytes of the gzip file. */
	size: number;
	/** CRC-32 of the gzip file's bytes (a stored zip member's checksum). */
	crc: number;
}

export interface DayManifest {
	ticker: string;
	date: string;
	/** Records per category (seconds from 09:30:00 through the close). */
	records: number;
	members: Partial<Record<DayKey, DayMember>>;
}

export const MANIFEST = 'manifest.json';

export function dayFileName(key: DayKey): string {
	return `${key}.json.gz`;
}

/**
 * The manifest of a complete day folder, or undefined when the day is not (fully) written with
 * every day key of `profile`.
 */
export async function readManifest(
	dir: string,
	profile: PayloadProfile = DEFAULT_PAYLOAD_PROFILE
): Promise<DayManifest | undefined> {
	try {
		const manifest = JSON.parse(await readFile(join(dir, MANIFEST), 'utf8')) as DayManifest;
		return dayKeysOf(profile).every((k) => manifest.members?.[k]) ? manifest : undefined;
	} catch {
		return undefined;
	}
}

/** One category's JSON array streamed through gzip into a temporary file. */
class GzipArrayFile {
	private readonly gzip: Gzip;
	private readonly out: WriteStream;
	private readonly done: Promise<void>;
	private pending = '[';
	private count = 0;
	crc = 0;
	size = 0;

	constructor(readonly tmp: string) {
		this.gzip = createGzip({ level: DAY_GZIP_LEVEL, chunkSize: 64 << 10 });
		this.out = createWriteStream(tmp, { mode: 0o600 });
		this.gzip.on('data', (chunk: Buffer) => {
			this.crc = crc32(chunk, this.crc);
			this.size += chunk.length;
		});
		this.gzip.pipe(this.out);
		this.done = new Promise((resolve, reject) => {
			this.out.on('finish', resolve);
			this.out.on('error', reject);
			this.gzip.on('error', reject);
		});
		// Until awaited, a failure is only recorded (close() rethrows it).
		this.done.catch(() => undefined);
	}

	push(json: string): void {
		if (this.count++ > 0) this.pending += ',';
		this.pending += json;
		if (this.pending.length >= BATCH_CHARS) this.flush();
	}

	private flush(): void {
		if (this.pending.length === 0) return;
		this.gzip.write(this.pending);
		this.pending = '';
	}

	/** Resolves once the compressor's queue is back under the bound. */
	async settle(): Promise<void> {
		while (this.gzip.writableLength > MAX_QUEUED) {
			await new Promise<void>((resolve) => this.gzip.once('drain', resolve));
		}
	}

	async close(): Promise<DayMember> {
		this.pending += ']';
		this.flush();
		this.gzip.end();
		await this.done;
		return { size: this.size, crc: this.crc >>> 0 };
	}

	destroy(): void {
		this.gzip.destroy();
		this.out.destroy();
	}
}

export interface WriteDayOptions {
	seed: number;
	ticker: string;
	date: string;
	/** The day's folder (created); its files are replaced only once the whole day is written. */
	dir: string;
	/** Last tick to simulate (the close tick for a complete day). */
	endTick: number;
	/** Payload profile of the files (default observed, as the live service). */
	profile?: PayloadProfile;
	signal?: AbortSignal;
	/** Called now and then with the fraction of the day done. */
	onProgress?: (fraction: number) => void;
}

function yieldToLoop(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}

/** Creates the day's folder and removes what a killed generation left there. */
export async function prepareDayDir(dir: string): Promise<void> {
	await mkdir(dir, { recursive: true, mode: 0o700 });
	for (const name of await readdir(dir))
		if (name.endsWith('.tmp')) await rm(join(dir, name), { force: true });
}

/**
 * Simulates the ticker-day once and writes the files of `keys` (renamed into place once all of
 * them are complete); returns their members and the number of records.
 */
export async function writeDayCategories(
	options: WriteDayOptions,
	keys: readonly DayKey[]
): Promise<{ records: number; members: DayManifest['members'] }> {
	const { seed, ticker, date, dir, endTick, signal, onProgress, profile } = options;
	const view = viewOf(ticker);
	if (!view) throw new HistoryUnavailableError(`Unknown ticker ${ticker}.`, 404);
	const day = new TickerDay(seed, view.source, date, 'rings');
	const stamp = `${process.pid}.${Date.now().toString(36)}.tmp`;
	const files = keys.map((c) => new GzipArrayFile(join(dir, `${dayFileName(c)}.${stamp}`)));
	try {
		let slice = performance.now();
		// A part of GEX chains only needs gamma across the chain (TickerDay.step's 'gamma' mode),
		// one of the front sets' categories only their contracts' greeks ('front'): the same
		// values for less engine work (see DAY_PARTS).
		const mode = stepModeOf(keys);
		// A State chain's JSON from its classic chain's of the same tick when this part writes
		// both (the classic keys come first in every profile's order): the same text, a third of
		// the State chain's serialisation (profiles.ts).
		const classicOf = keys.map((k) => keys.indexOf(k.replace(/^state_/, '') as DayKey));
		const json: string[] = [];
		// The day ends at its own close (13:00 on an early close) whatever end was asked for.
		while (day.tick < endTick && day.step(mode)) {
			const format = viewFormatAt(seed, ticker, date, day.tick);
			for (let i = 0; i < files.length; i++) {
				const c = classicOf[i];
				json[i] =
					c >= 0 && c < i
						? observedStateChainJson(json[c])
						: JSON.stringify(dayValue(day, keys[i], format, profile));
				files[i].push(json[i]);
			}
			if (performance.now() - slice > SLICE_MS) {
				for (const f of files) await f.settle();
				await yieldToLoop();
				if (signal?.aborted) throw new HistoryUnavailableError('History generation aborted.', 503);
				onProgress?.(day.tick / Math.max(1, day.closeTick));
				slice = performance.now();
			}
		}
		const members: DayManifest['members'] = {};
		for (let i = 0; i < files.length; i++) members[keys[i]] = await files[i].close();
		for (let i = 0; i < files.length; i++)
			await rename(files[i].tmp, join(dir, dayFileName(keys[i])));
		return { records: day.tick + 1, members };
	} catch (err) {
		for (const f of files) {
			f.destroy();
			await rm(f.tmp, { force: true });
		}
		throw err;
	}
}

/** Writes the manifest last: from then on the folder is a complete day. */
export async function writeManifest(dir: string, manifest: DayManifest): Promise<void> {
	const tmp = join(dir, `${MANIFEST}.${process.pid}.${Date.now().toString(36)}.tmp`);
	await writeFile(tmp, JSON.stringify(manifest), { mode: 0o600 });
	await rename(tmp, join(dir, MANIFEST));
}

/** Simulates the ticker-day once, in this process, and writes every day key plus the manifest. */
export async function writeTickerDay(options: WriteDayOptions): Promise<DayManifest> {
	await prepareDayDir(options.dir);
	const { records, members } = await writeDayCategories(options, dayKeysOf(options.profile));
	const manifest: DayManifest = { ticker: options.ticker, date: options.date, records, members };
	await writeManifest(options.dir, manifest);
	options.onProgress?.(1);
	return manifest;
}
