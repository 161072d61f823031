import { sveltekit } from '@sveltejs/kit/vite';
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

export default defineConfig({
	plugins: [sveltekit(), embeddedService()],
	test: {
		testTimeout: 30_000,
		hookTimeout: 60_000,
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
});
