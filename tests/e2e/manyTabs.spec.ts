import { expect, test, type Page } from '@playwright/test';

/**
 * Eight tabs of the dashboard in one browser: HTTP/1.1 allows six connections per host, and the
 * alert toasts' stream (/alerts/events, a long request) used to be opened by every tab, so the
 * seventh tab's page never loaded. The tabs now share one stream (src/lib/live/firingEvents.ts):
 * every tab loads, one stream is open, a firing reaches every tab, and when the tab holding the
 * stream closes another takes it over.
 */

const TABS = 8;

async function openAlerts(page: Page) {
	await page.goto('/alerts', { timeout: 15_000 });
	await expect(page.getByTestId('rule-save')).toBeVisible({ timeout: 15_000 });
}

test('eight tabs load, share one firing stream, and each shows a firing', async ({ page }) => {
	test.setTimeout(120_000);
	const context = page.context();
	// The firing streams open at a time (a stream's own reconnect closes the old one first).
	const streams = new Set<unknown>();
	const isStream = (r: { url(): string }) => new URL(r.url()).pathname === '/alerts/events';
	context.on('request', (r) => void (isStream(r) && streams.add(r)));
	context.on('requestfinished', (r) => void streams.delete(r));
	context.on('requestfailed', (r) => void streams.delete(r));
	const pages = [page];
	await openAlerts(page);
	for (let i = 1; i < TABS; i++) {
		const p = await context.newPage();
		await openAlerts(p);
		pages.push(p);
	}
	await expect.poll(() => streams.size).toBe(1);

	// Two rules, fired with their Test buttons: the first through the first tab's stream, the
	// second after that tab is gone.
	const names = ['e2e many tabs one', 'e2e many tabs two'];
	for (const name of names) {
		await page.getByTestId('rule-level').selectOption('price');
		await page.getByTestId('rule-price').fill('1');
		await page.getByTestId('rule-name').fill(name);
		await page.getByTestId('rule-save').click();
		await expect(page.getByTestId('alerts-message')).toContainText(`Saved: ${name}`);
	}
	// The other tabs show the rules after a reload (they wait for the stream meanwhile).
	for (const p of pages.slice(1)) await openAlerts(p);
	await expect.poll(() => streams.size).toBe(1);
	const row = (p: Page, name: string) => p.locator('[data-testid="rule"]', { hasText: name });
	await row(page, names[0]).getByRole('button', { name: 'Test' }).click();
	for (const p of pages)
		await expect(p.getByTestId('alert-toast').filter({ hasText: names[0] })).toHaveCount(1);

	// The holder (the first tab) goes away: another tab opens the stream and hears the next one.
	await page.close();
	await expect.poll(() => streams.size, { timeout: 10_000 }).toBe(1);
	const rest = pages.slice(1);
	await row(rest[0], names[1]).getByRole('button', { name: 'Test' }).click();
	for (const p of rest)
		await expect(p.getByTestId('alert-toast').filter({ hasText: names[1] })).toHaveCount(1);
	for (const name of names) {
		await row(rest[0], name).getByRole('button', { name: 'Delete' }).click();
		await expect(row(rest[0], name)).toHaveCount(0);
	}
});
