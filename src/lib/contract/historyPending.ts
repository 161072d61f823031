/**
 * A history day that is not ready yet: the service's `/v2/hist/...` answers 504 with
 * `{"error", "status": "queued"|"generating", "position", "progress", "eta_seconds"}` and a
 * Retry-After header while it generates the day. The dashboard's `/history/...` passes the same
 * body on to the page (adding `status: "requesting"` while it is still waiting for the service's
 * first answer), so the page can say where the day stands instead of an endless spinner. Pure:
 * both the dashboard server and the browser read it.
 */

/**
 * `import-queued` and `importing` are the dashboard's own: the service has the day and it waits
 * for, or is being downloaded in, this server's import slot (one import at a time).
 */
export type HistoryPendingState =
	'requesting' | 'queued' | 'generating' | 'import-queued' | 'importing';

export interface HistoryPending {
	state: HistoryPendingState;
	/** 1-based place in the service's (or this server's import) queue (0 when not queued). */
	position: number;
	/** Fraction of the day generated, 0..1 (0 while queued or unknown). */
	progress: number;
	/** Estimated seconds until the day is ready; null when the service has not said yet. */
	etaSeconds: number | null;
	/** The service's (or the dashboard's) own sentence. */
	message: string;
}

const STATES: readonly HistoryPendingState[] = [
	'requesting',
	'queued',
	'generating',
	'import-queued',
	'importing'
];

/**
 * The pending state of a 504 body, or undefined when the body is not one (a plain gateway
 * timeout, an HTML page, another error): such an answer is a final error, not progress.
 */
export function parseHistoryPending(body: unknown): HistoryPending | undefined {
	if (typeof body !== 'object' || body === null) return undefined;
	const b = body as Record<string, unknown>;
	const state = b.status;
	if (typeof state !== 'string' || !STATES.includes(state as HistoryPendingState)) return undefined;
	const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
	const position = num(b.position);
	const progress = num(b.progress);
	const eta = num(b.eta_seconds);
	return {
		state: state as HistoryPendingState,
		position: position !== undefined && position >= 0 ? Math.floor(position) : 0,
		progress: progress === undefined ? 0 : Math.min(1, Math.max(0, progress)),
		etaSeconds: eta !== undefined && eta >= 0 ? eta : null,
		message: typeof b.error === 'string' ? b.error : ''
	};
}

/** The wire body of a pending state (the service's field names). */
export function historyPendingBody(p: HistoryPending): Record<string, unknown> {
	return {
		error: p.message,
		status: p.state,
		position: p.position,
		progress: Math.round(p.progress * 1000) / 1000,
		eta_seconds: p.etaSeconds
	};
}

/**
 * Seconds of a Retry-After header (delta-seconds or an HTTP date, RFC 9110), or undefined when
 * absent or unreadable. `now`: unix ms, for the date form.
 */
export function parseRetryAfter(
	header: string | null | undefined,
	now: number
): number | undefined {
	if (header === null || header === undefined) return undefined;
	const text = header.trim();
	if (/^\d+$/.test(text)) return Number(text);
	const at = Date.parse(text);
	if (!/[a-z]/i.test(text) || Number.isNaN(at)) return undefined;
	return Math.max(0, Math.ceil((at - now) / 1000));
}
