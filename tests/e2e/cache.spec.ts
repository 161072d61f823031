import { expect, test } from '@playwright/test';

test('a reload paints the last snapshot from IndexedDB, marked stale, and stays readable offline', async ({
	page
}) => {
	await page.goto('/SPX/classic/gex_full');
	await expect(page.locator('rect.bar').first()).toBeVisible();
	await expect(page.getByTestId('live').or(page.getByTestId('market-closed'))).toBeVisible();
	await page.waitForTimeout(500); // the snapshot reaches IndexedDB

	// The upstream becomes unreachable: the proxy answers nothing.
	await page.route('**/api/**', (route) => route.abort('internetdisconnected'));
	await page.reload();
	await expect(page.locator('rect.bar').first()).toBeVisible();
	await expect(page.getByTestId('stale')).toBeVisible();
	await expect(page.getByTestId('error')).toContainText('Network error');
	await page.screenshot({ path: 'test-results/offline-cached.png' });
});

test('storage failures turn the cache off with a notice, never a broken page', async ({ page }) => {
	await page.addInitScript(() => {
		// What some private modes do: IndexedDB exists but refuses to open.
		indexedDB.open = () => {
			throw new DOMException('The user denied permission to access the database.', 'SecurityError');
		};
	});
	await page.goto('/SPX/classic/gex_full');
	await expect(page.locator('rect.bar').first()).toBeVisible();
	await expect(page.locator('.cache-notice')).toContainText('offline cache turned off');
});
