import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { isSessionDay } from '../../src/lib/contract/marketCalendar';
import { etDay } from '../../src/lib/contract/newYorkTime';

/**
 * A past day the service must still generate, picked as a "Service day" in Orderflow: the view
 * shows where the generation stands (the service's own progress and wait) while it polls, then
 * the day's series; Classic and Levels open the same day from the server's copy at once; a
 * second day can be given up for Today (live). These tests run their own dashboard (built app,
 * free port, fresh data folder) whose embedded service answers a history request after 1.5 s
 * with its progress instead of the default minute, so the progress shows in seconds: the suite's
 * shared server keeps the default the other specs (EOD) rely on. UNG: a small chain whose past
 * day simulates quickly.
 */

let dashboard: ChildProcess | undefined;
let base = '';
let dataDir = '';

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

test.beforeAll(async () => {
	test.setTimeout(180_000);
	const port = await freePort();
	dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-e2e-serviceday-'));
	base = `http://127.0.0.1:${port}`;
	// The built app as is (the suite's own server brought build/ up to date before any test): not
	// scripts/start.js, which would rebuild it under the running server should a source be newer.
	dashboard = spawn(process.execPath, ['build/index.js'], {
		stdio: 'ignore',
		env: {
			...process.env,
			NODE_ENV: 'production',
			HOST: '127.0.0.1',
			PORT: String(port),
			GEXDECK_DATA_DIR: dataDir,
			GEXDECK_SERVICE_HISTORY_WAIT_MS: '1500'
		}
	});
	const until = Date.now() + 170_000;
	for (;;) {
		const ok = await fetch(`${base}/login`).then(
			(r) => r.ok,
			() => false
		);
		if (ok) break;
		if (Date.now() > until) throw new Error('the service-day dashboard did not start');
		await new Promise((r) => setTimeout(r, 500));
	}
});

test.afterAll(async () => {
	const child = dashboard;
	if (child && child.exitCode === null) {
		const exited = new Promise((resolve) => child.once('exit', resolve));
		child.kill('SIGTERM');
		await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
	}
	if (dataDir) rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
});

/** The service's session days before its current one, newest first (from a live payload). */
async function pastSessions(page: Page, n: number): Promise<string[]> {
	// The embedded service may still be warming up just after the dashboard answers.
	let live: { timestamp: number } | undefined;
	await expect
		.poll(
			async () => {
				const res = await page.request.get(`${base}/api/UNG/orderflow/orderflow`);
				if (res.status() === 200) live = (await res.json()) as { timestamp: number };
				return res.status();
			},
			{ timeout: 90_000, intervals: [1_000] }
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

/** Types the day into the Service day field (again, should the page not be hydrated yet). */
async function pickServiceDay(page: Page, day: string) {
	await expect(async () => {
		await page.getByTestId('service-day').fill('');
		await page.getByTestId('service-day').fill(day);
		await expect(page).toHaveURL(new RegExp(`[?&]day=${day}(&|$)`), { timeout: 2_000 });
	}).toPass({ timeout: 30_000 });
}

test('Orderflow: a service day shows its generation progress, then its series', async ({
	page
}) => {
	test.setTimeout(240_000);
	// Not the last completed session: the service builds that one in the background at start.
	const [, , day] = await pastSessions(page, 3);
	await page.goto(`${base}/UNG/orderflow`);
	const serviceDay = page.getByTestId('service-day');
	await expect(serviceDay).toBeVisible({ timeout: 30_000 });
	await pickServiceDay(page, day);
	await expect(page.getByTestId('past-day')).toContainText(day);
	// A finished day from the service is not followed.
	await expect(page.getByTestId('past-day')).toContainText('(not live)');

	// The service's own word on the day: its progress (or queue place) and the wait.
	const pending = page.getByTestId('day-pending');
	await expect(pending).toContainText(
		/Generating this day on the service: \d+%|Queued on the service/,
		{ timeout: 45_000 }
	);
	await expect(page.getByTestId('day-cancel')).toBeVisible();
	await page.screenshot({ path: 'test-results/serviceday-orderflow-generating.png' });

	// Then the day's series, from the server's copy of it.
	const timeline = page.getByTestId('timeline');
	await expect(timeline).toBeVisible({ timeout: 180_000 });
	// The series is drawn as the day's records arrive: the whole day once the loading is over.
	await expect(page.getByTestId('day-loading')).toHaveCount(0, { timeout: 60_000 });
	await expect
		.poll(async () => Number(await timeline.getAttribute('data-points')), { timeout: 30_000 })
		.toBeGreaterThan(1000);
	await expect(page.getByTestId('series-note')).toContainText(`Session ${day}`);
	await expect(page.getByTestId('series-note')).toContainText("from the server's recording");
	await page.screenshot({ path: 'test-results/serviceday-orderflow.png' });
});

test('Levels and Classic open a service day; a day still generating can be given up', async ({
	page
}) => {
	test.setTimeout(120_000);
	const [, , day, older] = await pastSessions(page, 4);
	// Levels offers the service's days too, and draws the day's path (the service built the
	// whole ticker-day above: its gex_full comes quickly).
	await page.goto(`${base}/levels/UNG`);
	await expect(page.getByTestId('service-day')).toBeVisible({ timeout: 30_000 });
	await pickServiceDay(page, day);
	await expect(page.getByTestId('levels-path')).toHaveAttribute('data-day', day, {
		timeout: 90_000
	});
	expect(Number(await page.getByTestId('levels-path').getAttribute('data-points'))).toBeGreaterThan(
		100
	);
	await page.screenshot({ path: 'test-results/serviceday-levels.png', fullPage: true });

	// Another day: the wait shows, and "Today (live)" stops it.
	await page.goto(`${base}/UNG/classic/gex_full?day=${older}`);
	await expect(page.getByTestId('day-loading')).toBeVisible({ timeout: 30_000 });
	await expect(page.getByTestId('day-pending')).toBeVisible({ timeout: 45_000 });
	await page.screenshot({ path: 'test-results/serviceday-classic-generating.png' });
	await page.getByTestId('day-cancel').click();
	await expect(page).not.toHaveURL(/[?&]day=/);
	await expect(page.getByTestId('day-loading')).toHaveCount(0);
	await expect(page.getByTestId('day-picker')).toHaveValue('');
});
