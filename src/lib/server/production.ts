/**
 * What the dashboard adds to the http.Server under every production entry (`node build`,
 * `npm start`, which runs the same build/index.js, and `vite preview`), called from the init
 * hook: the /api fast path, the server hand-over at its first connection (httpServer.ts) and
 * graceful shutdown on SIGTERM/SIGINT (lifecycle.ts). Not under `vite dev`, whose server also
 * carries Vite's own WebSocket upgrades.
 */
import { stopEmbeddedServices } from './embedded';
import { handleFastApi } from './fastApi';
import { httpServer, interceptRequests, onHttpServer, watchHttpServer } from './httpServer';
import { installShutdown } from './lifecycle';
import { stopRecorder } from './recorder/mount';
import { quotaLedger } from './services';
import { stopStreamRelay } from './stream/mount';

let started = false;

export function startProductionServer(): void {
	if (started) return;
	started = true;
	// adapter-node reads these after the init hook: keep-alive longer than the usual proxies'
	// 60 s idle timeout, and connections cut within the dashboard's shutdown deadline.
	process.env.KEEP_ALIVE_TIMEOUT ||= '65';
	process.env.SHUTDOWN_TIMEOUT ||= '8';
	// GET /api/* skips SvelteKit's pipeline: the proxy's node:http fast path (fastApi.ts).
	onHttpServer((server) => interceptRequests(server, handleFastApi));
	watchHttpServer();
	installShutdown({
		server: httpServer,
		stopStream: async () => {
			// Recording ends before the relay goes, so no frame arrives at a closed recorder.
			stopRecorder();
			await stopStreamRelay();
		},
		flush: () => quotaLedger().flush(),
		stopService: () => stopEmbeddedServices(),
		exit: (code) => process.exit(code)
	});
}
