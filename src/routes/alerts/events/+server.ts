/**
 * `GET /alerts/events`: the firings of alert rules as Server-Sent Events, one `firing` event per
 * firing of the signed-in user's rules (the JSON of AlertFiring), for the toasts and
 * notifications of their open tabs. A
 * comment line every 25 s keeps proxies from closing an idle stream. The request gate of
 * hooks.server.ts covers it like every route (a session when a password is set or users exist);
 * the stream closes when its session ends. At most
 * alertEventStreams.max streams at once: past it, 503 with Retry-After (the tab's EventSource
 * gives up; the page's next load opens a new one).
 */
import { alertService } from '$lib/server/alerts/alertsMount';
import { onSessionsEnded, SESSION_COOKIE, sessionKey } from '$lib/server/auth';
import { IMPLICIT_OWNER, OWNER_ASKER } from '$lib/server/alerts/store';
import { alertEventStreams } from '$lib/server/connectionCap';
import type { RequestHandler } from './$types';

const HEARTBEAT_MS = 25_000;

export const GET: RequestHandler = ({ request, cookies, locals }) => {
	// Toasts and notifications go to the rule's owner only; the rules made before teams mode (by
	// the implicit admin) are the admins'.
	const me = locals.user ?? OWNER_ASKER;
	const mine = (owner: string) =>
		owner === me.id || (owner === IMPLICIT_OWNER && me.role === 'admin');
	const session = cookies.get(SESSION_COOKIE);
	const key = session ? sessionKey(session) : undefined;
	const release = alertEventStreams.acquire();
	if (!release) return alertEventStreams.busy('alert streams');
	const encoder = new TextEncoder();
	let stop: (() => void) | undefined;
	const body = new ReadableStream<Uint8Array>({
		start(controller) {
			const send = (text: string) => {
				try {
					controller.enqueue(encoder.encode(text));
				} catch {
					stop?.();
				}
			};
			const unsubscribe = alertService().onFiring((f, owner) => {
				if (!mine(owner)) return;
				send(`event: firing\nid: ${f.id}\ndata: ${JSON.stringify(f)}\n\n`);
			});
			const heartbeat = setInterval(() => send(': keep-alive\n\n'), HEARTBEAT_MS);
			// The session ended (sign-out, disable, role change): the stream ends with it.
			const offEnded = onSessionsEnded((keys) => {
				if (!key || !keys.has(key)) return;
				stop?.();
				try {
					controller.close();
				} catch {
					// already closed
				}
			});
			stop = () => {
				stop = undefined; // once, whichever of abort, cancel or the session's end comes first
				clearInterval(heartbeat);
				unsubscribe();
				offEnded();
				release();
			};
			request.signal.addEventListener('abort', () => {
				stop?.();
				try {
					controller.close();
				} catch {
					// already closed
				}
			});
			// Tells the tab the stream is open (and how soon to reconnect after a drop).
			send('retry: 3000\n: connected\n\n');
		},
		cancel() {
			stop?.();
		}
	});
	return new Response(body, {
		headers: {
			'content-type': 'text/event-stream; charset=utf-8',
			'cache-control': 'no-store',
			'x-accel-buffering': 'no'
		}
	});
};
