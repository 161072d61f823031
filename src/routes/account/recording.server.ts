/**
 * The Account page's recording panel: what the server's recorder holds on disk (days, bytes,
 * against the retention limits) and the form that changes the retention and the tickers
 * recorded even when no tab is open (a list saved here, or the last watchlist opened).
 */
import { fail } from '@sveltejs/kit';
import {
	currentAlwaysRecord,
	readRecordingSettings,
	sessionRecorder,
	updateRecordingSettings,
	type AlwaysRecordList
} from '$lib/server/recorder/recorderMount';

export interface RecordingStatus {
	bytes: number;
	days: string[];
	files: number;
	/** The list in effect and why (saved here, the last watchlist, or the default). */
	alwaysRecord: AlwaysRecordList;
	retentionDays: number;
	maxBytes: number;
	records: number;
	failures: number;
	lastError: string | null;
}

export function recordingStatus(): RecordingStatus {
	const recorder = sessionRecorder();
	const usage = recorder.diskUsage();
	const settings = readRecordingSettings();
	return {
		...usage,
		alwaysRecord: currentAlwaysRecord(),
		retentionDays: settings.retentionDays,
		maxBytes: settings.maxBytes,
		records: recorder.counters.records,
		failures: recorder.counters.failures,
		lastError: recorder.counters.lastError ?? null
	};
}

export async function saveRecording(form: FormData) {
	// "Follow my last watchlist" drops the saved list; else the field is the list (empty: none).
	const tickers =
		form.get('followWatchlist') === 'on'
			? null
			: String(form.get('alwaysRecord') ?? '')
					.split(/[\s,]+/)
					.filter(Boolean);
	const retentionDays = Number(form.get('retentionDays'));
	const maxGb = Number(form.get('maxGb'));
	try {
		await updateRecordingSettings({
			alwaysRecord: tickers,
			retentionDays,
			maxBytes: Math.round(maxGb * 1024 ** 3)
		});
	} catch (e) {
		return fail(400, { message: (e as Error).message });
	}
	return { message: 'Recording settings saved.' };
}
