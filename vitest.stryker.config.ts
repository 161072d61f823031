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
		// Each test here takes under 3 s unmutated; a mutant that hangs one (endless retries, a
		// timer never set) fails it at 10 s instead of waiting for Stryker's own timeout, which
		// also restarts the worker.
		testTimeout: 10_000,
		environment: 'node',
		include: [
			'src/lib/server/*.test.ts',
			// The quota ledger's import from an older release's ledger.json (isLedgerFile); the
			// database layer's own tests cover no module mutated here.
			'src/lib/server/db/legacyImport.test.ts',
			'src/lib/server/recorder/*.test.ts',
			// The upstream negotiation (the key's POST, its deadline and the answer's cap).
			'src/lib/server/stream/negotiator.test.ts',
			'src/lib/server/alerts/*.test.ts',
			'src/service/quota/*.test.ts',
			'src/service/hubs/reliable*.test.ts',
			// The new modules of issue 26's sixth pass (npm run mutate -- --mutate <file>).
			'src/lib/stream/backfill/earlyFetch.test.ts',
			'src/lib/stream/backfill/daySeed.test.ts',
			'src/lib/stream/backfill/answerBytes.test.ts',
			'src/lib/relay/momentBody.test.ts',
			'src/lib/server/overview/momentResponse.test.ts',
			// The replay of taps made before the app started.
			'src/lib/state/earlyTaps.test.ts'
		]
	}
});
