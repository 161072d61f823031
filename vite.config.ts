import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
	plugins: [sveltekit()],
	test: {
		testTimeout: 30_000,
		hookTimeout: 60_000,
		projects: [
			{
				extends: true,
				test: {
					name: 'node',
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
