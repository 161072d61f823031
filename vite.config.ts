import { sveltekit } from '@sveltejs/kit/vite';
import { Server } from 'node:http';
import { availableParallelism } from 'node:os';
import { posix } from 'node:path';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import { buildEmbeddedService } from './scripts/build-service.js';

/**
 * `vite build` (and so `npm run build`, `npm start` and the e2e runner) also compiles the
 * embedded service (src/service/main.ts) into build/service/main.js, so `node build` needs
 * neither tsx nor src/. It runs after the adapter wrote build/ (the adapter empties the folder).
 */
function embeddedService(): Plugin {
	let ssr = false;
	return {
		name: 'gexdeck-embedded-service',
		apply: 'build',
		configResolved(config) {
			ssr = Boolean(config.build.ssr);
		},
		closeBundle: {
			order: 'post',
			sequential: true,
			async handler() {
				// SvelteKit's server build runs the adapter; its nested client build must not.
				if (ssr) await buildEmbeddedService();
			}
		}
	};
}

/**
 * `vite dev` serves what the production server serves: once Vite's http server listens, it is
 * handed to the app (src/lib/server/devServer.ts, loaded through Vite's SSR module graph so the
 * init hook's modules are the same instances), so /stream, the request gate's upgrade guard and
 * the /api fast path attach to it as in production, while Vite keeps its HMR socket.
 */
function devServer(): Plugin {
	return {
		name: 'gexdeck-dev-server',
		apply: 'serve',
		configureServer(server) {
			const http = server.httpServer;
			// Middleware mode has no server; https (http2) is not the plain server the app expects.
			if (!(http instanceof Server)) return;
			const ws = server.config.server.ws;
			// Where Vite's ws server answers HMR upgrades on this server (its own rule).
			const hmrPath = ws && ws.path ? posix.join(server.config.base, ws.path) : server.config.base;
			http.once('listening', () => {
				server
					.ssrLoadModule('/src/lib/server/devServer.ts')
					.then((mod) =>
						(mod as typeof import('./src/lib/server/devServer')).attachViteDevServer(http, hmrPath)
					)
					.catch((err: unknown) =>
						server.config.logger.error(`gexdeck: /stream not mounted: ${String(err)}`)
					);
			});
		}
	};
}

/**
 * The browser's modules in a few chunks instead of ~45: a page's scripts load over HTTP/1.1's six
 * connections per host, so 45 small files queue for 140 ms on loopback before hydration can start
 * (and ~8 round trips on a slow link); issue 26's whole-day views, measured by `npm run bench --
 * overview`. The libraries in one chunk, the project's shared code in another; three.js (and the
 * scene that loads it, a dynamic import of the 3D views) stays apart, loaded only by those views.
 */
const clientChunks = {
	groups: [
		{ name: 'three', test: /[\\/]node_modules[\\/]three[\\/]/, priority: 3 },
		{ name: 'vendor', test: /[\\/]node_modules[\\/]/, priority: 2 },
		{
			name: 'app',
			test: (id: string) =>
				/[\\/]src[\\/]lib[\\/]/.test(id) && !/[\\/]surface[\\/]scene\.ts$/.test(id),
			priority: 1
		}
	]
};

/**
 * V8's explicit compile hint, on the libraries' chunk only: every function of a script that begins
 * with this comment is compiled as the script streams in, on a background thread, instead of
 * lazily on the main thread at its first call. The libraries (Svelte's runtime, SvelteKit's
 * client, d3) are what a page's hydration runs first, and their lazy compiling was a large part
 * of that task, the longest of a cold load (issue 26). Measured by CPU time in traces of cold
 * Classic loads, that task went from ~50 to ~39 ms and Orderflow's module-evaluation tasks went
 * away; hinting the project's chunk too (every view's code, most of it unused by any one page)
 * gained little more and cost the heatmap's load.
 */
const COMPILE_HINT = '//# allFunctionsCalledOnLoad';
const compileHint = (chunk: { name: string }) => (chunk.name === 'vendor' ? COMPILE_HINT : '');

export default defineConfig(({ isSsrBuild }) => ({
	plugins: [sveltekit(), embeddedService(), devServer()],
	build: isSsrBuild
		? {}
		: { rolldownOptions: { output: { codeSplitting: clientChunks, postBanner: compileHint } } },
	test: {
		testTimeout: 30_000,
		hookTimeout: 60_000,
		// Vitest's default, cores - 1, is a single worker on a 2-core machine; the integration
		// tests mostly wait on sockets and child processes, so at least three files run at once
		// (README "Test it").
		maxWorkers: Math.max(availableParallelism() - 1, 3),
		projects: [
			{
				extends: true,
				test: {
					name: 'node',
					// Integration tests start the built dashboard: build once, before any of them.
					globalSetup: ['./tests/support/buildOnce.ts'],
					include: ['src/**/*.test.ts', 'tests/integration/**/*.test.ts'],
					exclude: ['src/**/*.svelte.test.ts'],
					environment: 'node'
				}
			},
			{
				// Rune classes ($effect, $derived) run only in Svelte's client build: compile for the
				// client (tests/support/runesEnvironment.ts) and resolve one client copy of svelte,
				// so the test's flushSync drives the same scheduler as the code under test.
				extends: true,
				resolve: { conditions: ['browser'] },
				test: {
					name: 'runes',
					include: ['src/**/*.svelte.test.ts'],
					environment: './tests/support/runesEnvironment.ts',
					server: { deps: { inline: ['svelte'] } }
				}
			}
		]
	}
}));
