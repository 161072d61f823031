import { expect, test } from '@playwright/test';

/**
 * The Account page's "Each user's share" table (issue 29) at a phone's width: with a Classic tab
 * streaming beside it, the user's row (the implicit owner of a dashboard without teams mode)
 * shows the memberships that tab's stream takes and the calls its first REST load made, the
 * account's totals below, and the table fits the screen.
 */
test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

test("the Account page shows each user's share and fits a phone", async ({ context }) => {
	const classic = await context.newPage();
	await classic.goto('/SPX/classic/gex_full');
	await expect(classic.getByTestId('feed-mode')).toHaveAttribute('data-mode', 'stream', {
		timeout: 30_000
	});
	const page = await context.newPage();
	await page.goto('/account');
	const table = page.getByTestId('shares-table');
	await expect(table).toBeVisible();
	const mine = page.locator('[data-testid="share-row"][data-name="owner"]');
	await expect(mine).toContainText('owner (you)');
	// The Classic tab's stream: SPX gex_full and SPX's spot at least.
	const memberships = Number(await mine.getByTestId('share-memberships').innerText());
	expect(memberships).toBeGreaterThanOrEqual(2);
	await expect(mine).toContainText('api_default');
	await expect(page.getByTestId('share-totals')).toContainText('Account (total)');
	const union = await page.getByTestId('share-union').innerText();
	expect(union).toMatch(/^\d+ \/ 150$/);
	expect(Number(union.split(' / ')[0])).toBeGreaterThanOrEqual(memberships);
	const fits = await page.evaluate(() => {
		const t = document.querySelector('[data-testid="shares-table"]')!.getBoundingClientRect();
		return {
			right: t.right,
			width: document.documentElement.clientWidth,
			scroll: document.documentElement.scrollWidth
		};
	});
	expect(fits.right).toBeLessThanOrEqual(fits.width);
	expect(fits.scroll).toBeLessThanOrEqual(fits.width);
});
