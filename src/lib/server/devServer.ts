/**
 * The hand-over under `vite dev`: the Vite plugin in vite.config.ts loads this module through
 * Vite's SSR module graph (the same instances the init hook in hooks.server.ts uses) and passes
 * Vite's own http server here, so /stream, the request gate's server guard and the /api fast
 * path attach to it exactly as to the production server (httpServer.ts onHttpServer). The init
 * hook runs at the first request SvelteKit sees; whatever it registers attaches then.
 *
 * Vite answers its HMR WebSocket on the same server: those upgrades (its `vite-hmr` and
 * `vite-ping` subprotocols on its HMR path) are foreign to the gate, which lets them pass
 * instead of answering 404 as it does for every other unclaimed upgrade.
 */
import type { IncomingMessage, Server } from 'node:http';
import { attachHttpServer } from './httpServer';

/** Vite's HMR subprotocols (vite/dist/node: the ws server's upgrade listener). */
const VITE_PROTOCOLS = ['vite-hmr', 'vite-ping'];

/** Whether `req` is an upgrade to Vite's HMR socket served at `hmrPath`. */
export function isViteUpgrade(req: IncomingMessage, hmrPath: string): boolean {
	const protocol = req.headers['sec-websocket-protocol'];
	if (!protocol || !VITE_PROTOCOLS.includes(protocol)) return false;
	const raw = req.url ?? '/';
	const q = raw.indexOf('?');
	return (q === -1 ? raw : raw.slice(0, q)) === hmrPath;
}

/** Hands Vite's dev http server to the dashboard; `hmrPath` is where Vite serves HMR. */
export function attachViteDevServer(server: Server, hmrPath: string): void {
	attachHttpServer(server, { foreignUpgrade: (req) => isViteUpgrade(req, hmrPath) });
}
