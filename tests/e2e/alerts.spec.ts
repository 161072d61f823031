import { expect, test, type Page } from '@playwright/test';

/**
 * The rules page in Chromium, on a phone and a desktop: a bad rule is refused with its reason,
 * a rule created on the page fires on the server from the streamed data and arrives in the tab
 * as a toast linking to the view, lands in the firing log, and is deleted again.
 */

async function createRule(page: Page, name: string) {
	await page.goto('/alerts');
	await page.waitForLoadState('networkidle');
	// A level that moves with nearly every calculation: zero gamma moving at all.
	await page.getByTestId('rule-kind').selectOption('level_move');
	await page.getByTestId('rule-level').selectOption('zero_gamma');
	await page.locator('input[name="points"]').fill('0');
	await page.locator('input[name="cooldownSeconds"]').fill('600');
	await page.getByTestId('rule-name').fill(name);
	await page.getByTestId('rule-save').click();
	await expect(page.getByTestId('alerts-message')).toContainText(`Saved: ${name}`);
	await expect(page.locator('[data-testid="rule"]', { hasText: name })).toBeVisible();
}

async function deleteRule(page: Page, name: string) {
	const row = page.locator('[data-testid="rule"]', { hasText: name });
	await row.getByRole('button', { name: 'Delete' }).click();
	await expect(row).toHaveCount(0);
}

for (const device of [
	{ name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
	{ name: 'desktop', viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false }
]) {
	test.describe(device.name, () => {
		test.use({
			viewport: device.viewport,
			isMobile: device.isMobile,
			hasTouch: device.hasTouch
		});

		test('a bad rule is refused with the reason, and what was typed stays', async ({ page }) => {
			await page.goto('/alerts');
			await page.waitForLoadState('networkidle');
			await page.getByTestId('rule-level').selectOption('price');
			await page.getByTestId('rule-price').fill('abc');
			await page.getByTestId('rule-save').click();
			await expect(page.getByTestId('rule-error')).toHaveText('price must be a number, got "abc"');
			await expect(page.getByTestId('rule-price')).toHaveValue('abc');
			await expect(page.getByTestId('rules')).toHaveCount(0);
		});

		test('a rule created on the page fires as a toast with a link to the view', async ({
			page
		}) => {
			const name = `e2e ${device.name} zero gamma`;
			await createRule(page, name);
			const toast = page.getByTestId('alert-toast').filter({ hasText: name });
			await expect(toast).toBeVisible({ timeout: 30_000 });
			await expect(toast).toContainText('zero gamma moved');
			const link = toast.getByRole('link', { name: 'Open the view' });
			await expect(link).toHaveAttribute('href', /^\/SPX\/classic\/gex_full\?at=\d+$/);
			const widths = await page.evaluate(() => ({
				scroll: document.documentElement.scrollWidth,
				client: document.documentElement.clientWidth
			}));
			expect(widths.scroll).toBeLessThanOrEqual(widths.client);
			await page.screenshot({ path: `test-results/alerts-${device.name}.png`, fullPage: false });

			// The link opens the view (at that moment when this browser recorded it).
			await link.click();
			await expect(page).toHaveURL(/\/SPX\/classic\/gex_full\?at=\d+$/);
			await expect(page.getByTestId('histogram')).toBeVisible();

			// The firing is in the log with its values; the rule shows when it last fired.
			await page.goto('/alerts');
			await expect(page.getByTestId('firings')).toContainText(name);
			await expect(page.getByTestId('firings')).toContainText(/level \d+/);
			await expect(page.locator('[data-testid="rule"]', { hasText: name })).toContainText(
				'last fired'
			);
			await page.screenshot({
				path: `test-results/alerts-page-${device.name}.png`,
				fullPage: true
			});
			await deleteRule(page, name);
		});
	});
}
