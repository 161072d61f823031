import { expect, test } from '@playwright/test';
import { pastSessions, startOwnDashboard, type OwnDashboard } from './ownDashboard';

/**
 * Issue 25 item 10 in Chromium: a past day the service must generate says, before the
 * service's first answer, how long ago it was asked, and then shows the day. The embedded
 * service holds a history request until the day is ready or GEXDECK_SERVICE_HISTORY_WAIT_MS
 * passed (default a minute); this spec's own dashboard sets 12 s, so the dashboard's 3 s hold
 * answers first with its own words ("Asked the service … N s ago") and the page asks again
 * while the service is still silent. QQQ: a mid-size chain. The count can only be seen to move
 * if the day is not ready before the page's second answer (~8 s after the first ask); UNG's day
 * took 6-9 s of engine work and sometimes was (CI, 2026-11-28), QQQ's takes ~18 s on the same
 * machine, and the service answers with its progress at 12 s anyway.
 */

let dashboard: OwnDashboard | undefined;

test.beforeAll(async () => {
	test.setTimeout(180_000);
	dashboard = await startOwnDashboard('dayasked', { GEXDECK_SERVICE_HISTORY_WAIT_MS: '12000' });
});

test.afterAll(async () => {
	await dashboard?.stop();
});

/** The N of every "… N s ago" the page shows now. */
const agesIn = (texts: string[]) =>
	texts.flatMap((t) => [...t.matchAll(/(\d+) s ago/g)].map((m) => Number(m[1])));

test('Classic: a service day says how long ago it was asked, then draws the day', async ({
	page
}) => {
	test.setTimeout(600_000);
	const base = dashboard!.base;
	// Not the last completed session: the service builds that one in the background at start.
	const [, day] = await pastSessions(page, base, 2);
	await page.setViewportSize({ width: 1280, height: 900 });
	await page.goto(`${base}/QQQ/classic/gex_full?day=${day}`);

	const asked = page.getByTestId('day-asked');
	await expect(asked).toContainText(
		new RegExp(`Asked the service for QQQ classic_gex_full on ${day} \\d+ s ago`),
		{ timeout: 30_000 }
	);
	await expect(page.getByTestId('day-pending')).toContainText('Asking the service for this day');
	// The time counts on while the service is silent: a later ask says a later time.
	const first = Math.min(...agesIn(await asked.allTextContents()));
	const seen = new Set<number>([first]);
	await expect
		.poll(
			async () => {
				for (const n of agesIn(await asked.allTextContents())) seen.add(n);
				return Math.max(...seen);
			},
			{ timeout: 20_000, intervals: [250] }
		)
		.toBeGreaterThan(first);
	await page.screenshot({ path: 'test-results/dayasked-classic.png' });

	// Then the day, from the server's copy of it (generating it takes minutes on a busy machine).
	await expect(page.getByTestId('histogram')).toBeVisible({ timeout: 400_000 });
	await expect(page.getByTestId('day-loading')).toHaveCount(0);
	await expect(page.getByTestId('past-day')).toContainText(day);
});
