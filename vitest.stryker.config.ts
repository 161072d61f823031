import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vitest/config';

/**
 * The unit tests of the security-critical modules, for `npm run mutate` (stryker.config.json)
 * only: no globalSetup (the main config's node project builds the app first, which no test here
 * needs) and no other test, so each mutant runs in seconds.
 */
export default defineConfig({
	plugins: [sveltekit()],
	test: {
		testTimeout: 30_000,
		environment: 'node',
		include: [
			'src/lib/server/proxy*.test.ts',
			'src/lib/server/requestGate*.test.ts',
			'src/lib/server/cookies.test.ts',
			'src/lib/server/auth.test.ts',
			'src/lib/server/quotaLedger.test.ts',
			'src/service/quota/*.test.ts',
			'src/lib/server/recorder/sessionRecorder*.test.ts',
			'src/lib/server/recorder/recordFile.test.ts',
			'src/lib/server/alerts/webhooks*.test.ts',
			'src/service/hubs/reliable*.test.ts'
		]
	}
});
