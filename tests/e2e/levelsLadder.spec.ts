import { expect, test, type Page } from '@playwright/test';

/**
 * Issue 25 item 6: the levels view is a price ladder, highest first with spot in its place, the
 * nearest level above and below marked, each with its distance in points and percent,
 * thumb-sized rows; the max change is labelled and the path's axis reads round prices.
 */

async function ladder(page: Page) {
	await page.goto('/levels/SPX');
	const rows = page.locator('[data-testid="levels"] li[data-price]');
	await expect(rows.first()).toBeVisible({ timeout: 30_000 });
	return rows;
}

for (const [name, viewport] of [
	['desktop', { width: 1280, height: 900 }],
	['phone', { width: 390, height: 844 }]
] as const) {
	test.describe(name, () => {
		test.use({ viewport });

		test('levels read as a price ladder with spot in place and the nearest marked', async ({
			page
		}) => {
			const rows = await ladder(page);
			const items = await rows.evaluateAll((els) =>
				els.map((e) => ({
					id: e.getAttribute('data-level')!,
					price: Number(e.getAttribute('data-price')),
					nearest: e.getAttribute('data-nearest'),
					height: e.getBoundingClientRect().height,
					dist: e.querySelector('[data-testid="distance"]')?.textContent?.trim() ?? ''
				}))
			);
			// Sorted by price, highest first, spot among the levels.
			const prices = items.map((i) => i.price);
			expect(prices).toEqual([...prices].sort((a, b) => b - a));
			const spotAt = items.findIndex((i) => i.id === 'spot');
			expect(spotAt).toBeGreaterThanOrEqual(0);
			const spot = items[spotAt].price;
			// The nearest above is the lowest level above spot; the nearest below the highest under it.
			const above = items.filter((i) => i.id !== 'spot' && i.price > spot);
			const below = items.filter((i) => i.id !== 'spot' && i.price < spot);
			if (above.length) {
				const p = Math.min(...above.map((i) => i.price));
				for (const i of above) expect(i.nearest, i.id).toBe(i.price === p ? 'above' : '');
				await expect(page.getByTestId('nearest-above').first()).toHaveText(/nearest above/);
			}
			if (below.length) {
				const p = Math.max(...below.map((i) => i.price));
				for (const i of below) expect(i.nearest, i.id).toBe(i.price === p ? 'below' : '');
			}
			expect(above.length + below.length).toBeGreaterThan(0);
			for (const i of items) {
				// Thumb-sized rows; distances in points and percent with one sign style.
				expect(i.height, i.id).toBeGreaterThanOrEqual(48);
				if (i.id === 'spot') continue;
				expect(i.dist, i.id).toMatch(/^[+−]?[\d,]+(\.\d+)? pts · [+−]?\d+\.\d{2}%$/);
				expect(i.dist.startsWith('+'), i.id).toBe(i.price > spot);
			}
			// Strikes as the grid has them: no "7,580.00" on a major.
			await expect(page.locator('li[data-level="mpos_vol"] .value')).toHaveText(/^[\d,]+(\.5)?$/);
			// The max change is labelled: what changed, by how much and over which window.
			const note = page.getByTestId('max-change-note');
			if ((await note.count()) > 0) {
				await expect(note).toHaveText(/^GEX change [+−]?\$[\d.]+[kMBT]? over (now|\d+m)$/);
			}
			await page.screenshot({
				path: `test-results/levels-ladder-${name}.png`,
				fullPage: true
			});
		});
	});
}
