/**
 * The recorder inside the dashboard: one SessionRecorder per process, writing under
 * `<dataDir>/recordings`, subscribed to the update tap, with its settings (retention and the
 * "record even when no tab is open" tickers) in `<dataDir>/recording.json`.
 *
 * The always-record list is held as a server-side viewer of the stream relay (a Quant account
 * streams those groups whether or not a tab is open) and, for accounts that poll, as a
 * once-a-second poll through the proxy in market hours. SvelteKit-only (reads the config):
 * call mountRecorder() once from the init hook.
 */
import { join } from 'node:path';
import { analyticsGroupName } from '../../contract/hubs';
import { isStreamTicker } from '../../contract/tickers';
import { isRegularTradingHours } from '../../contract/newYorkTime';
import { config } from '../config';
import { readJsonFile, writeJsonFile } from '../jsonFile';
import { log } from '../log';
import { upstreamProxy } from '../services';
import { streamRelay } from '../stream/mount';
import type { RelayViewer } from '../stream/relay';
import { upstreamTarget } from '../upstream';
import { updateTap } from '../updates/tap';
import { DEFAULT_MAX_BYTES, DEFAULT_RETENTION_DAYS, SessionRecorder } from './sessionRecorder';

export interface RecordingSettings {
	version: 1;
	/** Tickers recorded whether or not a tab watches them (default: the watchlist's tickers). */
	alwaysRecord: string[];
	retentionDays: number;
	maxBytes: number;
}

/** The watchlist page's default tickers: what a fresh install watches. */
export const DEFAULT_ALWAYS_RECORD = ['SPX', 'NDX', 'RUT', 'SPY', 'QQQ'];
/** What an always-recorded ticker records: the Classic GEX views and orderflow. */
export const ALWAYS_RECORD_ROUTES = [
	['classic', 'gex_full'],
	['classic', 'gex_zero'],
	['classic', 'gex_one'],
	['orderflow', 'orderflow']
] as const;

function settingsPath(): string {
	return join(config().dataDir, 'recording.json');
}

export function readRecordingSettings(): RecordingSettings {
	const stored = readJsonFile<Partial<RecordingSettings>>(settingsPath());
	return {
		version: 1,
		alwaysRecord: (stored?.alwaysRecord ?? DEFAULT_ALWAYS_RECORD).filter((t) => isStreamTicker(t)),
		retentionDays: stored?.retentionDays ?? DEFAULT_RETENTION_DAYS,
		maxBytes: stored?.maxBytes ?? DEFAULT_MAX_BYTES
	};
}

let recorder: SessionRecorder | undefined;
let alwaysViewer: RelayViewer | undefined;
let pollTimer: ReturnType<typeof setInterval> | undefined;

/** The process's recorder (created and attached to the tap on first use). */
export function sessionRecorder(): SessionRecorder {
	if (!recorder) {
		const s = readRecordingSettings();
		recorder = new SessionRecorder({
			root: join(config().dataDir, 'recordings'),
			retentionDays: s.retentionDays,
			maxBytes: s.maxBytes,
			log: (message) => console.log(`gexdeck: ${message}`)
		});
		const repaired = recorder.recoverAll();
		if (repaired.truncatedBytes > 0) {
			console.log(
				`gexdeck: recorder repaired ${repaired.files} files (${repaired.truncatedBytes} torn bytes cut)`
			);
		}
		recorder.enforceRetention();
		recorder.attach(updateTap());
	}
	return recorder;
}

/** Saves new settings and applies them (always-record list, retention). */
export function updateRecordingSettings(
	next: Omit<RecordingSettings, 'version'>
): RecordingSettings {
	const tickers = [...new Set(next.alwaysRecord.map((t) => t.trim().toUpperCase()))];
	const bad = tickers.filter((t) => !isStreamTicker(t));
	if (bad.length > 0) throw new RangeError(`Unknown tickers: ${bad.join(', ')}`);
	if (!Number.isInteger(next.retentionDays) || next.retentionDays < 1 || next.retentionDays > 400) {
		throw new RangeError('Retention days must be a whole number from 1 to 400.');
	}
	if (!Number.isFinite(next.maxBytes) || next.maxBytes < 64 * 1024 ** 2) {
		throw new RangeError('The disk limit must be at least 64 MB.');
	}
	const settings: RecordingSettings = { version: 1, ...next, alwaysRecord: tickers };
	writeJsonFile(settingsPath(), settings);
	recorder?.close();
	recorder = undefined;
	sessionRecorder();
	void applyAlwaysRecord();
	return settings;
}

/** Does the current key stream (Quant)? Then the relay records; else the poller does. */
export async function accountStreams(): Promise<boolean> {
	const target = await upstreamTarget();
	if (!target.customKey) return false;
	const info = await upstreamProxy().account(target, target.customKey);
	return typeof info !== 'number' && info.max_level === 'quant';
}

/** Brings the always-record viewer / poller to the saved list. */
export async function applyAlwaysRecord(): Promise<void> {
	const { alwaysRecord } = readRecordingSettings();
	const relay = streamRelay();
	if (alwaysViewer) {
		relay.disconnect(alwaysViewer);
		alwaysViewer = undefined;
	}
	clearInterval(pollTimer);
	pollTimer = undefined;
	if (alwaysRecord.length === 0) return;
	const streams = await accountStreams().catch(() => false);
	if (streams) {
		// A viewer with no browser behind it: its frames go nowhere, but the relay holds its
		// groups, so the tap (and the recorder) sees them.
		alwaysViewer = relay.connect(
			{ readyState: 1, bufferedAmount: 0, send: () => undefined, close: () => undefined },
			'always-record'
		);
		relay.subscribe(
			alwaysViewer,
			alwaysRecord.flatMap((t) => ALWAYS_RECORD_ROUTES.map(([p, c]) => analyticsGroupName(t, p, c)))
		);
		return;
	}
	// Polling tiers: one request per route and second through the proxy (shared with any tab
	// polling the same route, so this costs no quota beyond what a tab would spend).
	pollTimer = setInterval(() => {
		if (!isRegularTradingHours(Date.now())) return;
		for (const t of alwaysRecord) {
			for (const [p, c] of ALWAYS_RECORD_ROUTES) {
				void upstreamProxy()
					.handle('GET', `${t}/${p}/${c}`, new URLSearchParams())
					.catch(() => undefined);
			}
		}
	}, 1000);
	pollTimer.unref?.();
}

let mounted = false;

/** Starts the recorder and the always-record list (idempotent). */
export function mountRecorder(): SessionRecorder {
	const r = sessionRecorder();
	if (!mounted) {
		mounted = true;
		void applyAlwaysRecord().catch((e: unknown) =>
			log.error('always-record failed', { error: (e as Error).message })
		);
	}
	return r;
}

/** Stops the always-record viewer and poller and closes the open day files (shutdown). */
export function stopRecorder(): void {
	clearInterval(pollTimer);
	pollTimer = undefined;
	if (alwaysViewer) {
		streamRelay().disconnect(alwaysViewer);
		alwaysViewer = undefined;
	}
	recorder?.close();
}
