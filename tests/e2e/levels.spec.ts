import { expect, test } from '@playwright/test';

test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

test('the levels view fits 390x844 without horizontal scroll', async ({ page }) => {
	await page.goto('/levels/SPX');
	const rows = page.locator('[data-testid="levels"] li');
	await expect(rows).toHaveCount(7);
	for (const id of ['spot', 'zero', 'mpos_vol', 'mpos_oi', 'mneg_vol', 'mneg_oi', 'maxchange']) {
		await expect(page.locator(`li[data-level="${id}"] .value`)).toHaveText(/\d|not computed/);
	}
	const widths = await page.evaluate(() => ({
		scroll: document.documentElement.scrollWidth,
		client: document.documentElement.clientWidth
	}));
	expect(widths.scroll).toBeLessThanOrEqual(widths.client);
	for (const box of await rows.evaluateAll((els) =>
		els.map((e) => e.getBoundingClientRect().right)
	)) {
		expect(box).toBeLessThanOrEqual(390);
	}
	// Distances from spot in points and percent.
	await expect(page.locator('li[data-level="mpos_vol"] .dist')).toContainText('%');
	await page.screenshot({ path: 'test-results/levels-phone.png', fullPage: true });

	// Futures conversion on a toggle: ES levels are index levels x multiplier + additive.
	const spotIndex = await page.locator('li[data-level="spot"] .value').innerText();
	await page.getByTestId('futures-toggle').tap();
	await expect(page).toHaveURL(/fut=1/);
	await expect(page.getByTestId('conversion')).toContainText('ES');
	await expect(page.locator('li[data-level="spot"] .dist')).toContainText('index');
	expect(await page.locator('li[data-level="spot"] .value').innerText()).not.toBe(spotIndex);
});
