import { expect, test } from '@playwright/test';

/**
 * Issue 25: the price chart beside Classic's histogram draws from the day Classic's replay
 * loaded, so opening Classic asks the server for the day once (it asked a second time, for the
 * price chart's own load of the day's overview); the price view still loads the day itself.
 * Issue 26: Classic's one read of the day is its overview's lines (both metrics).
 */

test.use({ viewport: { width: 1280, height: 900 } });

test('Classic asks for the day once; the price chart beside the histogram draws from it', async ({
	page
}) => {
	const asked: string[] = [];
	page.on('request', (r) => {
		const url = new URL(r.url());
		if (url.pathname.startsWith('/history/SPX/classic_gex_full')) asked.push(url.pathname);
	});
	await page.goto('/SPX/classic/gex_full');
	const chart = page.getByTestId('classic-price').getByTestId('price-chart');
	await expect(chart).toBeVisible({ timeout: 45_000 });
	await expect
		.poll(async () => Number(await chart.getAttribute('data-candles')), { timeout: 30_000 })
		.toBeGreaterThan(0);
	await expect(chart.locator('path[data-level="zero"]')).toHaveAttribute('d', /^M[\d.]+ [\d.]+H/);
	// The replay's one read of the day (its overview's lines by volume and by OI; the raw day
	// only when the server has no overview of it yet), and nothing more while the page runs.
	await page.waitForTimeout(2_000);
	const read = [...asked];
	expect(read.filter((p) => p.endsWith('/overview'))).toHaveLength(2);
	expect(read.filter((p) => p === '/history/SPX/classic_gex_full').length).toBeLessThanOrEqual(1);
	expect(read).toHaveLength(read.includes('/history/SPX/classic_gex_full') ? 3 : 2);
	await page.waitForTimeout(2_000);
	expect(asked).toEqual(read);

	// The price view on its own loads the day (its overview) and draws it.
	asked.length = 0;
	await page.goto('/SPX/price/gex_full');
	await expect
		.poll(async () => Number(await page.getByTestId('price-chart').getAttribute('data-candles')), {
			timeout: 45_000
		})
		.toBeGreaterThan(0);
	expect(asked.length).toBeGreaterThan(0);
});
