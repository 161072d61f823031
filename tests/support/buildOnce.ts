/**
 * Vitest global setup: brings build/ up to date once, before any test file runs. Several
 * integration tests start the built dashboard (`npm start`, `node build`, `vite preview`) at the
 * same time; each `npm start` would otherwise rebuild a stale build/ on its own, and parallel
 * builds into one folder leave it broken. `scripts/start.js --build-only` is the same staleness
 * check and production build that `npm start` runs.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
	const root = fileURLToPath(new URL('../..', import.meta.url));
	const result = spawnSync(process.execPath, [join(root, 'scripts', 'start.js'), '--build-only'], {
		cwd: root,
		stdio: 'inherit'
	});
	if (result.status !== 0) throw new Error(`build before the tests failed (${result.status})`);
}
