/**
 * The recorder inside the dashboard: one SessionRecorder per process, writing under
 * `<dataDir>/recordings`, subscribed to the update tap, with its settings (retention: the
 * admin's) in the database (recordingStore.ts) and each user's "record even when no tab is open"
 * list (userRecording.ts): a list saved on their Account page, else the watchlist they last
 * opened (the watchlist page reports it). The recorder records the union of the enabled users'
 * lists (one recording per ticker), a fresh install's default before anyone chose; it reads the
 * lists again every LISTS_POLL_MS, so another process's change or a disabled user counts there.
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
import { errorText, log } from '../log';
import { updateTap } from '../updates/tap';
import { SingletonJob } from '../cluster/singletonJob';
import { slotHoldSignal } from '../stream/relayMount';
import { recordingDatabase, saveRecording, storedRecording } from './recordingStore';
import { DEFAULT_MAX_BYTES, DEFAULT_RETENTION_DAYS, SessionRecorder } from './sessionRecorder';
import {
	ALWAYS_RECORD_MAX,
	saveUserList,
	saveUserWatchlist,
	unionOf,
	userList,
	userLists,
	type AlwaysRecordList,
	type UserList
} from './userRecording';

export {
	ALWAYS_RECORD_MAX,
	DEFAULT_ALWAYS_RECORD,
	alwaysRecordList,
	type AlwaysRecordList,
	type LastWatchlist,
	type UserList
} from './userRecording';

export interface RecordingSettings {
	version: 1;
	retentionDays: number;
	maxBytes: number;
}

/** How often the recorder reads the users' lists again (other processes, disabled users). */
export const LISTS_POLL_MS = 2_000;
/** What an always-recorded ticker records: the Classic GEX views and orderflow. */
export const ALWAYS_RECORD_FEEDS = [
	['classic', 'gex_full'],
	['classic', 'gex_zero'],
	['classic', 'gex_one'],
	['orderflow', 'orderflow']
] as const;
/** The watchlist page's limit: more than this is not a watchlist the page could have shown. */
export const LAST_WATCHLIST_MAX = 20;

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
		retentionDays: stored?.retentionDays ?? DEFAULT_RETENTION_DAYS,
		maxBytes: stored?.maxBytes ?? DEFAULT_MAX_BYTES
	};
}

/** `owner`'s list in effect (their Account page, their tokens' MCP watchlist). */
export async function alwaysRecordOf(owner: string): Promise<UserList> {
	return userList(recordingDatabase(), owner);
}

/** Every user's list, with whether it counts (an admin's Account page). */
export function alwaysRecordLists(): Promise<UserList[]> {
	return userLists(recordingDatabase());
}

/** What the recorder records now: the union of the lists that count. */
export async function currentAlwaysRecord(): Promise<AlwaysRecordList> {
	return unionOf(await userLists(recordingDatabase()));
}

/**
 * `owner`'s watchlist page opened (or edited) `tickers`: remembered as their last watchlist and,
 * while they saved no list on the Account page, recorded from now on. Returns their list.
 */
export async function rememberWatchlist(
	owner: string,
	tickers: readonly string[],
	now = Date.now()
): Promise<AlwaysRecordList> {
	const list = normaliseTickers(tickers);
	if (list.length > LAST_WATCHLIST_MAX) {
		throw new RangeError(`A watchlist holds at most ${LAST_WATCHLIST_MAX} tickers.`);
	}
	await saveUserWatchlist(recordingDatabase(), owner, list, now);
	await applyAlwaysRecord();
	return (await alwaysRecordOf(owner)).list;
}

/** A saved list normalised; unknown tickers or more than ALWAYS_RECORD_MAX are a RangeError. */
export function checkedList(list: readonly string[]): string[] {
	const tickers = normaliseTickers(list);
	if (tickers.length > ALWAYS_RECORD_MAX) {
		throw new RangeError(
			`Always record holds at most ${ALWAYS_RECORD_MAX} tickers (${tickers.length} given): each holds stream memberships of your account whether or not a tab is open.`
		);
	}
	return tickers;
}

/** Saves `owner`'s always-record list (null: follow their last watchlist) and applies it. */
export async function saveAlwaysRecord(
	owner: string,
	alwaysRecord: readonly string[] | null
): Promise<AlwaysRecordList> {
	const tickers = alwaysRecord === null ? null : checkedList(alwaysRecord);
	await saveUserList(recordingDatabase(), owner, tickers);
	await applyAlwaysRecord();
	return (await alwaysRecordOf(owner)).list;
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

/** Saves new retention settings (an admin's) and applies them. */
export async function updateRecordingSettings(
	next: Omit<RecordingSettings, 'version'>
): Promise<RecordingSettings> {
	if (!Number.isInteger(next.retentionDays) || next.retentionDays < 1 || next.retentionDays > 400) {
		throw new RangeError('Retention days must be a whole number from 1 to 400.');
	}
	if (!Number.isFinite(next.maxBytes) || next.maxBytes < 64 * 1024 ** 2) {
		throw new RangeError('The disk limit must be at least 64 MB.');
	}
	const settings: RecordingSettings = { version: 1, ...next };
	await saveRecording({ retentionDays: settings.retentionDays, maxBytes: settings.maxBytes });
	// The same recorder goes on with the new limits (its counters and open files kept).
	sessionRecorder().retain({ retentionDays: settings.retentionDays, maxBytes: settings.maxBytes });
	return settings;
}

/** The feeds of an always-record list: each ticker's ALWAYS_RECORD_FEEDS. */
export function alwaysRecordFeeds(tickers: readonly string[]): Feed[] {
	return tickers.flatMap((t) => ALWAYS_RECORD_FEEDS.map(([p, c]) => feedOf(t, p, c)));
}

/** The union last handed to the feed holder (joined), to hold again only on a change. */
let held: string | undefined;
let poll: ReturnType<typeof setInterval> | undefined;

/**
 * Holds the union of the lists as the feed holder's 'recorder' client (streamed or polled as the
 * account allows; the holder re-decides by itself when the keys change).
 */
export async function applyAlwaysRecord(): Promise<void> {
	// Not recording here (not mounted, or another replica records in cluster mode).
	if (!job?.running) return;
	const tickers = (await currentAlwaysRecord()).tickers;
	if (!job.running || tickers.join(',') === held) return;
	held = tickers.join(',');
	feedHolder().client('recorder').hold(alwaysRecordFeeds(tickers));
}

function applyLogged(): void {
	applyAlwaysRecord().catch((err: unknown) =>
		log.error('recorder: the always-record lists could not be read', { error: errorText(err) })
	);
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
					held = undefined;
					applyLogged();
					poll = setInterval(applyLogged, LISTS_POLL_MS);
					poll.unref?.();
				},
				stop: () => {
					clearInterval(poll);
					held = undefined;
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
