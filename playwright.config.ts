import { defineConfig } from '@playwright/test';

/**
 * End-to-end tests in Debian's Chromium against the built app (`node scripts/start.js`) and the
 * embedded service it starts. scripts/e2e.js picks the free port and a fresh data folder and
 * passes them in the environment (every Playwright worker reads the same values).
 */
const port = Number(process.env.GEXDECK_E2E_PORT ?? 4319);
const dataDir = process.env.GEXDECK_E2E_DATA_DIR ?? 'data/e2e';

export default defineConfig({
	testDir: 'tests/e2e',
	fullyParallel: false,
	// One worker: some tests switch the demo account, which is server-wide state.
	workers: 1,
	timeout: 60_000,
	expect: { timeout: 15_000 },
	reporter: [['list']],
	outputDir: 'test-results',
	use: {
		baseURL: `http://127.0.0.1:${port}`,
		screenshot: 'only-on-failure',
		trace: 'off',
		launchOptions: {
			executablePath: '/usr/bin/chromium',
			args: [
				'--no-sandbox',
				'--disable-gpu',
				'--disable-background-networking',
				'--disable-component-update',
				'--no-first-run',
				'--disable-sync'
			]
		}
	},
	webServer: {
		command: 'node scripts/start.js',
		url: `http://127.0.0.1:${port}/login`,
		reuseExistingServer: false,
		timeout: 180_000,
		stdout: 'pipe',
		stderr: 'pipe',
		env: {
			HOST: '127.0.0.1',
			PORT: String(port),
			GEXDECK_DATA_DIR: dataDir,
			// The alerts spec's webhook receiver listens on loopback, which webhooks may not reach
			// unless allowed.
			GEXDECK_WEBHOOK_ALLOW: '127.0.0.1'
		}
	}
});
