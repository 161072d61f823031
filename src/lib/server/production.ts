/**
 * What the dashboard adds under every production entry (`node build`, `npm start`, which runs
 * the same build/index.js, and `vite preview`), called from the init hook: the server hand-over
 * at its first connection (httpServer.ts) and graceful shutdown on SIGTERM/SIGINT
 * (lifecycle.ts). Not under `vite dev`, where the Vite plugin in vite.config.ts hands Vite's
 * server over (devServer.ts) and Vite owns the process's signals.
 */
import { stopEmbeddedServices } from './embedded';
import { stopFeeds } from './feeds/feedsMount';
import { httpServer, watchHttpServer } from './httpServer';
import { installShutdown } from './lifecycle';
import { stopMcp } from './mcp/mcpMount';
import { stopRecorder } from './recorder/recorderMount';
import { quotaLedger, stopSharedLimits } from './services';
import { stopStreamRelay } from './stream/relayMount';

let started = false;

export function startProductionServer(): void {
	if (started) return;
	started = true;
	// adapter-node reads these after the init hook: keep-alive longer than the usual proxies'
	// 60 s idle timeout, and connections cut within the dashboard's shutdown deadline.
	process.env.KEEP_ALIVE_TIMEOUT ||= '65';
	process.env.SHUTDOWN_TIMEOUT ||= '8';
	watchHttpServer();
	installShutdown({
		server: httpServer,
		stopStream: async () => {
			// Recording ends before the relay goes, so no frame arrives at a closed recorder.
			stopMcp();
			stopRecorder();
			stopFeeds();
			await stopStreamRelay();
			// Cluster mode: off the replica list at once rather than when its card expires.
			await stopSharedLimits();
		},
		flush: () => quotaLedger().flush(),
		stopService: () => stopEmbeddedServices(),
		exit: (code) => process.exit(code)
	});
}
