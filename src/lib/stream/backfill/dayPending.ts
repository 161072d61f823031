/**
 * The page's side of a past day the service is still generating: when to ask again (the
 * answer's Retry-After, bounded so a bad header neither hammers nor stalls), when to give up,
 * and the sentence the views show. Pure: unit tests call it directly.
 */
import type { HistoryPending } from '../../contract/historyPending';

/** A pending answer as the page received it (unix ms), so its wait can count down. */
export interface DayPendingNote {
	pending: HistoryPending;
	at: number;
}

/** Never ask again sooner than this, whatever Retry-After says (0 would spin). */
export const MIN_RETRY_MS = 1_000;
/** Nor later: a long queue estimate is re-checked at least this often. */
export const MAX_RETRY_MS = 60_000;
/** A day still not ready after this long is reported as an error (the user may pick it again). */
export const GIVE_UP_MS = 15 * 60_000;

/**
 * Milliseconds to wait before asking again: the answer's Retry-After when it gave one, else
 * 2 s doubling per attempt up to 30 s; always within [MIN_RETRY_MS, MAX_RETRY_MS].
 */
export function retryDelayMs(retryAfterS: number | undefined, attempt: number): number {
	const ms =
		retryAfterS !== undefined && Number.isFinite(retryAfterS)
			? retryAfterS * 1000
			: Math.min(30_000, 2_000 * 2 ** Math.max(0, attempt));
	return Math.min(MAX_RETRY_MS, Math.max(MIN_RETRY_MS, ms));
}

/** Seconds left of the note's wait at `now` (unix ms); null when the service gave none. */
export function secondsLeft(note: DayPendingNote, now: number): number | null {
	const eta = note.pending.etaSeconds;
	if (eta === null) return null;
	return Math.max(0, Math.round(eta - (now - note.at) / 1000));
}

function waitText(seconds: number | null): string {
	if (seconds === null) return '';
	if (seconds <= 0) return ' · almost ready';
	if (seconds < 90) return ` · about ${seconds} s left`;
	return ` · about ${Math.round(seconds / 60)} min left`;
}

/** What the view says while the day is pending, e.g. "Generating this day on the service: 42% · about 17 s left". */
export function pendingSummary(note: DayPendingNote, now: number): string {
	const p = note.pending;
	const wait = waitText(secondsLeft(note, now));
	switch (p.state) {
		case 'queued':
			return `Queued on the service${p.position > 0 ? `: position ${p.position}` : ''}${wait}`;
		case 'generating':
			return `Generating this day on the service: ${Math.floor(p.progress * 100)}%${wait}`;
		case 'import-queued':
			return `Waiting to download this day: position ${p.position} in this server's queue`;
		case 'importing':
			return `Downloading this day from the service: ${Math.floor(p.progress * 100)}%`;
		default:
			// The dashboard's estimate from the last days it fetched (the service has not answered).
			return `Asking the service for this day…${wait}${wait && p.etaSeconds !== null ? ' (as the last days took)' : ''}`;
	}
}
