/**
 * The answers that must come at once however busy the server is, given on the node:http request
 * before SvelteKit's pipeline (Request/Response conversion, hooks, route loading) sees it:
 *
 * - GET/HEAD /healthz: `{"status":"ok"}` (liveness; public, see requestGate.ts). Under a burst of
 *   hundreds of requests SvelteKit's per-request work queued the probe behind all of them.
 * - a /history/<ticker>/<stream> answer past its connection cap (connectionCap.ts): the 503 with
 *   Retry-After the route would give, without building a Request for it. The slot is taken here
 *   when one is free (held until the response closes; the route finds it with
 *   reservedHistorySlot), so a burst cannot slip hundreds of requests into the pipeline before
 *   the first reaches the route. A request the route would not cap (an import of a day from the
 *   service, which answers with its own progress) and one the gate refuses go on to SvelteKit as
 *   before.
 *
 * Both pass the same request gate as every other entry point first (Host allowlist, session):
 * a request the gate refuses is left to SvelteKit, which answers the refusal as it always did.
 * Mounted from the init hook through httpServer.ts like the /api fast path (fastApi.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { config } from './config';
import { historyStreams, type ConnectionCap } from './connectionCap';
import { interceptRequests, onHttpServer } from './httpServer';
import { sessionRecorder } from './recorder/recorderMount';
import { isRecordedDay } from './recorder/sessionRecorder';
import { checkNodeRequest } from './requestGate';
import { sendApiAnswer } from './securityHeaders';

export interface FastAnswerDeps {
	history: ConnectionCap;
	/** Whether the recorder holds the day (else a `source=service` request imports it). */
	recorded: (day: string, ticker: string, stream: string) => boolean;
	https: () => boolean;
}

const HEALTHY = JSON.stringify({ status: 'ok' });
const HISTORY_STREAM = /^\/history\/([^/]+)\/([^/]+)$/;

function decoded(part: string): string | undefined {
	try {
		return decodeURIComponent(part);
	} catch {
		return undefined;
	}
}

/** Whether the /history route would import this request's day before taking a slot. */
function imports(deps: FastAnswerDeps, ticker: string, stream: string, query: string): boolean {
	const q = new URLSearchParams(query);
	const day = q.get('day');
	return (
		q.get('source') === 'service' &&
		day !== null &&
		isRecordedDay(day) &&
		!deps.recorded(day, ticker, stream)
	);
}

/** Answers the request and returns true, or returns false to leave it to SvelteKit. */
export function fastAnswer(
	deps: FastAnswerDeps,
	req: IncomingMessage,
	res: ServerResponse
): boolean {
	const method = req.method ?? 'GET';
	if (method !== 'GET' && method !== 'HEAD') return false;
	const raw = req.url ?? '/';
	const q = raw.indexOf('?');
	const path = q === -1 ? raw : raw.slice(0, q);
	if (path === '/healthz') {
		if (!checkNodeRequest(req, path).ok) return false;
		const body = method === 'HEAD' ? undefined : HEALTHY;
		sendApiAnswer(res, deps.https(), 200, 'application/json', body);
		return true;
	}
	const m = HISTORY_STREAM.exec(path);
	if (!m) return false;
	const [ticker, stream] = [decoded(m[1]), decoded(m[2])];
	if (ticker === undefined || stream === undefined) return false;
	if (imports(deps, ticker, stream, q === -1 ? '' : raw.slice(q + 1))) return false;
	if (!checkNodeRequest(req, `/history/${ticker}/${stream}`).ok) return false;
	// The slot is taken here, not when the route runs: a burst arrives faster than SvelteKit
	// reaches the route, and every request let through meanwhile paid its whole pipeline.
	const release = deps.history.acquire();
	if (release) {
		reserved.set(req, release);
		res.once('close', release);
		return false;
	}
	const body = method === 'HEAD' ? undefined : deps.history.busyText('history answers');
	sendApiAnswer(res, deps.https(), 503, 'application/json', body, {
		'retry-after': String(deps.history.retryAfterSeconds)
	});
	return true;
}

/** History slots taken here for the route (historySlot), by request. */
const reserved = new WeakMap<IncomingMessage, () => void>();

/**
 * The /history slot fastAnswer took for `req` (held until its response closes), or undefined
 * when it did not take one (an import, or a request that arrived before the fast answers were
 * mounted): the route then takes its own.
 */
export function reservedHistorySlot(req: IncomingMessage | undefined): (() => void) | undefined {
	const release = req && reserved.get(req);
	if (req) reserved.delete(req);
	return release;
}

let mounted = false;

/** Puts the fast answers in front of the dashboard's http.Server once it is known. */
export function mountFastAnswers(): void {
	if (mounted) return;
	mounted = true;
	const deps: FastAnswerDeps = {
		history: historyStreams,
		recorded: (day, ticker, stream) => sessionRecorder().has(day, ticker, stream),
		https: () => config().secureCookies
	};
	onHttpServer((server) => interceptRequests(server, (req, res) => fastAnswer(deps, req, res)));
}
