import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, type Page } from '@playwright/test';
import { isSessionDay } from '../../src/lib/contract/marketCalendar';
import { etDay } from '../../src/lib/contract/newYorkTime';

/**
 * A dashboard of a spec's own (the built app, a free port, a fresh data folder) for settings
 * the suite's shared server must keep at their defaults, e.g. how long the embedded service
 * holds a history request (GEXDECK_SERVICE_HISTORY_WAIT_MS).
 */
export interface OwnDashboard {
	base: string;
	stop: () => Promise<void>;
}

function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const srv = createServer();
		srv.once('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = srv.address() as { port: number };
			srv.close(() => resolve(port));
		});
	});
}

export async function startOwnDashboard(
	name: string,
	env: Record<string, string>
): Promise<OwnDashboard> {
	const port = await freePort();
	const dataDir = mkdtempSync(join(tmpdir(), `gexdeck-e2e-${name}-`));
	const base = `http://127.0.0.1:${port}`;
	// The built app as is (the suite's own server brought build/ up to date before any test): not
	// scripts/start.js, which would rebuild it under the running server should a source be newer.
	const child: ChildProcess = spawn(process.execPath, ['build/index.js'], {
		stdio: 'ignore',
		env: {
			...process.env,
			NODE_ENV: 'production',
			HOST: '127.0.0.1',
			PORT: String(port),
			GEXDECK_DATA_DIR: dataDir,
			...env
		}
	});
	const stop = async () => {
		if (child.exitCode === null) {
			const exited = new Promise((resolve) => child.once('exit', resolve));
			child.kill('SIGTERM');
			await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
		}
		rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
	};
	const until = Date.now() + 170_000;
	for (;;) {
		const ok = await fetch(`${base}/login`).then(
			(r) => r.ok,
			() => false
		);
		if (ok) break;
		if (Date.now() > until) {
			await stop();
			throw new Error(`the ${name} dashboard did not start`);
		}
		await new Promise((r) => setTimeout(r, 500));
	}
	return { base, stop };
}

/** The service's session days before its current one, newest first (from a live payload). */
export async function pastSessions(page: Page, base: string, n: number): Promise<string[]> {
	// The embedded service may still be warming up just after the dashboard answers.
	let live: { timestamp: number } | undefined;
	await expect
		.poll(
			async () => {
				const res = await page.request.get(`${base}/api/UNG/orderflow/orderflow`);
				if (res.status() === 200) live = (await res.json()) as { timestamp: number };
				return res.status();
			},
			{ timeout: 180_000, intervals: [1_000] }
		)
		.toBe(200);
	let day = etDay(live!.timestamp);
	const out: string[] = [];
	while (out.length < n) {
		day = new Date(Date.parse(`${day}T12:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
		if (isSessionDay(day)) out.push(day);
	}
	return out;
}
