/**
 * The relay inside the dashboard: one StreamRelay per process, negotiating with the upstream
 * and custom-script key the dashboard currently uses (settings, environment or the embedded
 * demo account), and its `/stream` endpoint on the http.Server of scripts/start.js, guarded like
 * every other dashboard route (the session cookie when a password is set; refused on a
 * non-loopback bind without a password).
 *
 * SvelteKit-only (it reads the dashboard's config): call mountStreamRelay() once from the init
 * hook in src/hooks.server.ts, and streamRelay().refresh() after the keys change.
 */
import type { IncomingMessage } from 'node:http';
import { SESSION_COOKIE, sessionValid } from '../auth';
import { config, isLoopbackHost } from '../config';
import { onHttpServer } from '../httpServer';
import { upstreamTarget } from '../upstream';
import { updateTap } from '../updates/tap';
import { attachStreamEndpoint, cookieOf } from './endpoint';
import { StreamRelay } from './relay';

let relay: StreamRelay | undefined;
let mounted = false;

/** The process's relay (created on first use). */
export function streamRelay(): StreamRelay {
	relay ??= new StreamRelay({
		target: async () => {
			const t = await upstreamTarget();
			return { baseUrl: t.baseUrl, key: t.customKey };
		},
		userAgent: config().userAgent,
		tap: updateTap(),
		log: (message) => console.log(`gexdeck: ${message}`)
	});
	return relay;
}

/** Same rule as the hooks: a password means a valid session cookie; loopback needs none. */
export function authorizeViewer(req: IncomingMessage): true | { status: number; message: string } {
	const cfg = config();
	if (!isLoopbackHost(cfg.host) && !cfg.password) {
		return {
			status: 503,
			message: 'gexdeck is bound to a non-loopback address without GEXDECK_PASSWORD.'
		};
	}
	if (!cfg.password) return true;
	return sessionValid(cookieOf(req, SESSION_COOKIE))
		? true
		: { status: 401, message: 'Log in first.' };
}

/** Registers `/stream` on the dashboard's server (scripts/start.js calls the attachers). */
export function mountStreamRelay(): StreamRelay {
	const r = streamRelay();
	if (mounted) return r;
	mounted = true;
	onHttpServer((server) => {
		const endpoint = attachStreamEndpoint(server, r, authorizeViewer);
		server.once('close', () => {
			endpoint.close();
			void r.close();
		});
	});
	return r;
}
