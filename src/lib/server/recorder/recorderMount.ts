/**
 * The recorder inside the dashboard: one SessionRecorder per process, writing under
 * `<dataDir>/recordings`, subscribed to the update tap, with its settings (retention and the
 * "record even when no tab is open" tickers) in the database (recordingStore.ts). Until a list is
 * saved there, the always-record list is the watchlist the user last opened (the watchlist page
 * reports it), and a fresh install's default before that.
 *
 * The always-record list is held by the feed holder as its 'recorder' client (server/feeds: a
 * relay viewer when the account streams, else a once-a-second poll in market hours; the recorder
 * itself records whatever the update tap publishes). SvelteKit-only (reads the config): call
 * mountRecorder() once from the init hook.
 *
 * In cluster mode the recording (the tap and the always-record list) runs only on the replica
 * holding the upstream slot (cluster/singletonJob.ts): it sees every frame of the cluster's
 * stream, so each is written once; every replica reads the recordings for /history from the
 * shared folder (GEXDECK_RECORDINGS_DIR on a volume every replica mounts).
 */
import { join } from 'node:path';
import { feedOf, type Feed } from '../../contract/feeds';
import { isStreamTicker } from '../../contract/tickers';
import { config } from '../config';
import { feedHolder } from '../feeds/feedsMount';
import { log } from '../log';
import { updateTap } from '../updates/tap';
import { SingletonJob } from '../cluster/singletonJob';
import { slotHoldSignal } from '../stream/relayMount';
import { saveRecording, saveWatchlist, storedRecording, storedWatchlist } from './recordingStore';
import { DEFAULT_MAX_BYTES, DEFAULT_RETENTION_DAYS, SessionRecorder } from './sessionRecorder';

export interface RecordingSettings {
	version: 1;
	/**
	 * Tickers recorded whether or not a tab watches them, as saved on the Account page; null
	 * (never saved, or set back to follow) means the last watchlist opened, see alwaysRecordList.
	 */
	alwaysRecord: string[] | null;
	retentionDays: number;
	maxBytes: number;
}

/** A fresh install's always-record list (the watchlist page's own default tickers). */
export const DEFAULT_ALWAYS_RECORD = ['SPX', 'NDX', 'RUT', 'SPY', 'QQQ'];
/** What an always-recorded ticker records: the Classic GEX views and orderflow. */
export const ALWAYS_RECORD_FEEDS = [
	['classic', 'gex_full'],
	['classic', 'gex_zero'],
	['classic', 'gex_one'],
	['orderflow', 'orderflow']
] as const;
/** The watchlist page's limit: more than this is not a watchlist the page could have shown. */
export const LAST_WATCHLIST_MAX = 20;
/**
 * Tickers the Account page's always-record list may hold: each holds its groups in the account's
 * 150 stream memberships whether or not a tab is open (63 tickers took them all).
 */
export const ALWAYS_RECORD_MAX = 20;

/** The watchlist the user last opened, as the watchlist page reported it. */
export interface LastWatchlist {
	version: 1;
	tickers: string[];
	/** When it was opened (unix ms). */
	openedAt: number;
}

/** The list in effect and why: saved on the Account page, the last watchlist, or the default. */
export interface AlwaysRecordList {
	tickers: string[];
	source: 'saved' | 'watchlist' | 'default';
	/** For 'watchlist': when that watchlist was opened (unix ms). */
	openedAt?: number;
}

/** Which list records when no tab is open: an explicit list wins, then the last watchlist. */
export function alwaysRecordList(
	saved: string[] | null,
	last: LastWatchlist | undefined
): AlwaysRecordList {
	if (saved) return { tickers: saved, source: 'saved' };
	if (last) return { tickers: last.tickers, source: 'watchlist', openedAt: last.openedAt };
	return { tickers: [...DEFAULT_ALWAYS_RECORD], source: 'default' };
}

/** Upper-cased, without repeats; unknown symbols are a RangeError naming them. */
export function normaliseTickers(list: readonly string[]): string[] {
	const tickers = [...new Set(list.map((t) => t.trim().toUpperCase()).filter(Boolean))];
	const bad = tickers.filter((t) => !isStreamTicker(t));
	if (bad.length > 0) throw new RangeError(`Unknown tickers: ${bad.join(', ')}`);
	return tickers;
}

export function readRecordingSettings(): RecordingSettings {
	const stored = storedRecording();
	return {
		version: 1,
		alwaysRecord:
			stored?.alwaysRecord?.filter((t) => isStreamTicker(t)).slice(0, ALWAYS_RECORD_MAX) ?? null,
		retentionDays: stored?.retentionDays ?? DEFAULT_RETENTION_DAYS,
		maxBytes: stored?.maxBytes ?? DEFAULT_MAX_BYTES
	};
}

export function readLastWatchlist(): LastWatchlist | undefined {
	const stored = storedWatchlist();
	if (!stored || !Array.isArray(stored.tickers)) return undefined;
	return {
		version: 1,
		tickers: stored.tickers.filter((t) => isStreamTicker(t)),
		openedAt: Number(stored.openedAt) || 0
	};
}

/** The always-record list in effect now (the Account page shows it). */
export function currentAlwaysRecord(): AlwaysRecordList {
	return alwaysRecordList(readRecordingSettings().alwaysRecord, readLastWatchlist());
}

/**
 * The watchlist page opened (or edited) `tickers`: remembered as the last watchlist and, while
 * no list was saved on the Account page, recorded from now on. Returns the list in effect.
 */
export async function rememberWatchlist(
	tickers: readonly string[],
	now = Date.now()
): Promise<AlwaysRecordList> {
	const list = normaliseTickers(tickers);
	if (list.length > LAST_WATCHLIST_MAX) {
		throw new RangeError(`A watchlist holds at most ${LAST_WATCHLIST_MAX} tickers.`);
	}
	const before = readLastWatchlist();
	const changed = !before || before.tickers.join(',') !== list.join(',');
	await saveWatchlist({ tickers: list, openedAt: now });
	const effective = currentAlwaysRecord();
	if (changed && effective.source === 'watchlist' && mounted) applyAlwaysRecord();
	return effective;
}

let recorder: SessionRecorder | undefined;
let mounted = false;
/** The recording itself, once per cluster (always running in one process). */
let job: SingletonJob | undefined;

/** The process's recorder (created on first use; it records once mountRecorder() ran). */
export function sessionRecorder(): SessionRecorder {
	if (!recorder) {
		const s = readRecordingSettings();
		recorder = new SessionRecorder({
			root: config().recordingsDir ?? join(config().dataDir, 'recordings'),
			retentionDays: s.retentionDays,
			maxBytes: s.maxBytes,
			log: (message) => log.info(message)
		});
		const repaired = recorder.recoverAll();
		if (repaired.truncatedBytes > 0) {
			log.info(
				`recorder repaired ${repaired.files} files (${repaired.truncatedBytes} torn bytes cut)`
			);
		}
		recorder.enforceRetention();
	}
	return recorder;
}

/** Saves new settings and applies them (always-record list, retention). */
export async function updateRecordingSettings(
	next: Omit<RecordingSettings, 'version'>
): Promise<RecordingSettings> {
	const tickers = next.alwaysRecord === null ? null : normaliseTickers(next.alwaysRecord);
	if (tickers && tickers.length > ALWAYS_RECORD_MAX) {
		throw new RangeError(
			`Always record holds at most ${ALWAYS_RECORD_MAX} tickers (${tickers.length} given): each holds stream memberships of your account whether or not a tab is open.`
		);
	}
	if (!Number.isInteger(next.retentionDays) || next.retentionDays < 1 || next.retentionDays > 400) {
		throw new RangeError('Retention days must be a whole number from 1 to 400.');
	}
	if (!Number.isFinite(next.maxBytes) || next.maxBytes < 64 * 1024 ** 2) {
		throw new RangeError('The disk limit must be at least 64 MB.');
	}
	const settings: RecordingSettings = { version: 1, ...next, alwaysRecord: tickers };
	await saveRecording({
		alwaysRecord: settings.alwaysRecord,
		retentionDays: settings.retentionDays,
		maxBytes: settings.maxBytes
	});
	// The same recorder goes on with the new limits (its counters and open files kept).
	sessionRecorder().retain({ retentionDays: settings.retentionDays, maxBytes: settings.maxBytes });
	applyAlwaysRecord();
	return settings;
}

/** The feeds of an always-record list: each ticker's ALWAYS_RECORD_FEEDS. */
export function alwaysRecordFeeds(tickers: readonly string[]): Feed[] {
	return tickers.flatMap((t) => ALWAYS_RECORD_FEEDS.map(([p, c]) => feedOf(t, p, c)));
}

/**
 * Holds the list in effect as the feed holder's 'recorder' client (streamed or polled as the
 * account allows; the holder re-decides by itself when the keys change).
 */
export function applyAlwaysRecord(): void {
	// Another replica records (cluster mode): it holds the list.
	if (job && !job.running) return;
	feedHolder().client('recorder').hold(alwaysRecordFeeds(currentAlwaysRecord().tickers));
}

/**
 * Starts recording and the always-record list (idempotent); in cluster mode only while this
 * replica holds the upstream slot.
 */
export function mountRecorder(): SessionRecorder {
	const r = sessionRecorder();
	if (!mounted) {
		mounted = true;
		job = new SingletonJob(
			'the recorder',
			{
				start: () => {
					r.attach(updateTap());
					applyAlwaysRecord();
				},
				stop: () => {
					feedHolder().client('recorder').release();
					r.close();
				}
			},
			slotHoldSignal()
		);
	}
	return r;
}

/** Lets go of the always-record list and closes the open day files (shutdown). */
export function stopRecorder(): void {
	job?.close();
	recorder?.close();
}

/** Whether this replica records now (always in one process once mounted). */
export function recorderRunsHere(): boolean {
	return job?.running ?? false;
}
