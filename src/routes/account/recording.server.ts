/**
 * The Account page's recording panel: what the server's recorder holds on disk (days, bytes,
 * against the retention limits) and the form that changes the retention (an admin's) and the
 * signed-in user's own tickers recorded even when no tab is open (a list saved here, or their
 * last watchlist opened). The recorder records the union of every enabled user's list; an admin
 * sees each user's list.
 */
import { fail } from '@sveltejs/kit';
import { IMPLICIT_OWNER } from '$lib/server/alerts/store';
import {
	alwaysRecordLists,
	alwaysRecordOf,
	checkedList,
	currentAlwaysRecord,
	readRecordingSettings,
	saveAlwaysRecord,
	sessionRecorder,
	updateRecordingSettings,
	type AlwaysRecordList
} from '$lib/server/recorder/recorderMount';

export interface RecordingStatus {
	bytes: number;
	days: string[];
	files: number;
	/** The asker's own list in effect and why (saved here, their last watchlist, the default). */
	alwaysRecord: AlwaysRecordList;
	/** What the recorder records: the union of the enabled users' lists. */
	recorded: AlwaysRecordList;
	/** An admin's view in teams mode: every user's list and whether it counts. */
	users: { name: string; tickers: string[]; source: string; counts: boolean }[] | null;
	/** Whether the asker may change the retention (an admin). */
	admin: boolean;
	retentionDays: number;
	maxBytes: number;
	records: number;
	failures: number;
	lastError: string | null;
}

interface Asking {
	user?: { id: string; name: string; role: string };
}

export async function recordingStatus(locals: Asking): Promise<RecordingStatus> {
	const recorder = sessionRecorder();
	const usage = recorder.diskUsage();
	const settings = readRecordingSettings();
	const admin = (locals.user?.role ?? 'admin') === 'admin';
	const own = await alwaysRecordOf(locals.user?.id ?? IMPLICIT_OWNER);
	const users =
		admin && locals.user
			? (await alwaysRecordLists()).map((l) => ({
					name: l.name ?? (l.owner === IMPLICIT_OWNER ? 'before teams mode' : 'a removed user'),
					tickers: l.list.tickers,
					source: l.list.source,
					counts: l.counts
				}))
			: null;
	return {
		...usage,
		alwaysRecord: own.list,
		recorded: await currentAlwaysRecord(),
		users,
		admin,
		retentionDays: settings.retentionDays,
		maxBytes: settings.maxBytes,
		records: recorder.counters.records,
		failures: recorder.counters.failures,
		lastError: recorder.counters.lastError ?? null
	};
}

/**
 * The form: the asker's list ("follow my last watchlist", or the list typed; empty: none) and,
 * for an admin, the retention. A trader's form has no retention fields; one that posts them is
 * refused (the retention is the team's).
 */
export async function saveRecording(form: FormData, locals: Asking) {
	const admin = (locals.user?.role ?? 'admin') === 'admin';
	const follow = form.get('followWatchlist') === 'on';
	const typed = form.get('alwaysRecord');
	if (!follow && typed === null) {
		return fail(400, { message: 'Enter the tickers to record, or follow your last watchlist.' });
	}
	const retention = form.has('retentionDays') || form.has('maxGb');
	if (retention && !admin) {
		return fail(403, { message: 'The retention and the disk limit are an admin’s to change.' });
	}
	const tickers = follow
		? null
		: String(typed)
				.split(/[\s,]+/)
				.filter(Boolean);
	try {
		if (tickers) checkedList(tickers);
		if (admin) {
			// Checked before the list is saved: a bad retention changes nothing.
			const retentionDays = Number(form.get('retentionDays'));
			const maxBytes = Math.round(Number(form.get('maxGb')) * 1024 ** 3);
			await updateRecordingSettings({ retentionDays, maxBytes });
		}
		await saveAlwaysRecord(locals.user?.id ?? IMPLICIT_OWNER, tickers);
	} catch (e) {
		return fail(400, { message: (e as Error).message });
	}
	return { message: 'Recording settings saved.' };
}
