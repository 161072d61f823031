import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vitest/config';

/**
 * The unit tests of the dashboard's server modules and of the service's quota and reliable
 * protocol, for `npm run mutate` (stryker.config.json) only: no globalSetup (the main config's
 * node project builds the app first, which no test here needs). Stryker runs only the tests that
 * cover a mutant, so each one takes seconds.
 */
export default defineConfig({
	plugins: [sveltekit()],
	test: {
		testTimeout: 30_000,
		environment: 'node',
		include: [
			'src/lib/server/*.test.ts',
			'src/lib/server/recorder/*.test.ts',
			'src/lib/server/alerts/*.test.ts',
			'src/service/quota/*.test.ts',
			'src/service/hubs/reliable*.test.ts'
		]
	}
});
