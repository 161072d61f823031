import { expect, test } from '@playwright/test';
import { startDashboard, type RunningDashboard } from '../integration/dashboard-support';

/**
 * A password-protected dashboard, logged into and out of through the browser's own form posts
 * (the login and logout forms are plain HTML forms). The integration tests post these forms
 * with hand-written headers; only a real browser shows which Origin it really sends: under
 * `Referrer-Policy: no-referrer` Chromium sent `Origin: null` and every login was refused.
 */
let d: RunningDashboard;

test.beforeAll(async () => {
	// The embedded default upstream, as a user who shares the dashboard on the network runs it.
	d = await startDashboard({ GEXDECK_UPSTREAM: undefined, GEXDECK_PASSWORD: 'correct horse' });
});

test.afterAll(async () => {
	await d?.stop();
});

test('logs in and out through the forms, keeping where the user was going', async ({ page }) => {
	const origins: string[] = [];
	page.on('request', (r) => {
		if (r.method() === 'POST') origins.push(r.headers()['origin'] ?? '(none)');
	});
	await page.goto(`${d.base}/account`);
	await expect(page).toHaveURL(/\/login\?next=%2Faccount$/);
	// Logged out, the menu is not offered (each item led back here).
	await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);

	await page.getByLabel('Password').fill('wrong');
	await page.getByRole('button', { name: 'Log in' }).click();
	await expect(page.getByRole('alert')).toContainText(/password/i);

	await page.getByLabel('Password').fill('correct horse');
	await page.getByRole('button', { name: 'Log in' }).click();
	await expect(page).toHaveURL(`${d.base}/account`);
	await expect(page.getByRole('button', { name: 'Log out' })).toBeVisible();
	await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
	// The session carries the live feed too: /stream's upgrade is authenticated by its cookie.
	await page.goto(`${d.base}/SPX/classic/gex_full`);
	await expect(page.getByTestId('feed-mode')).toContainText('Streaming', { timeout: 30_000 });
	await expect(page.locator('rect.bar').first()).toBeVisible();

	await page.getByRole('button', { name: 'Log out' }).click();
	await expect(page).toHaveURL(/\/login/);
	await page.goto(`${d.base}/account`);
	await expect(page).toHaveURL(/\/login\?next=%2Faccount$/);
	// Every form post named this dashboard as its origin.
	expect(origins.length).toBeGreaterThanOrEqual(3);
	for (const o of origins) expect(o).toBe(d.base);
});
