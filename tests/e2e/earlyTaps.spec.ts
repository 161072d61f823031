import { expect, test, type Page } from '@playwright/test';
import { holdScripts } from './holdScripts';

/**
 * A tap or a pick on the server's page before the app has started is kept and run once it has
 * (src/lib/state/earlyTaps.ts, the keeper in src/app.html): a phone that takes a second to start
 * the app must not drop the first tap on a category or a toggle, nor have the hydration put a
 * select back. The app's scripts are held until after the taps, which is that second made
 * certain.
 */

const started = (page: Page) =>
	expect(page.locator('html')).toHaveAttribute('data-started', /./, { timeout: 30_000 });

test('taps before the app starts are marked, then run once it has, each button once', async ({
	page
}) => {
	const release = await holdScripts(page);
	await page.goto('/SPX/classic/gex_full', { waitUntil: 'commit' });
	const palette = page.getByTestId('palette-toggle');
	const category = page.getByTestId('category-gex_zero');
	// Twice on the palette (the first seemed to do nothing), then a category.
	await palette.click();
	await palette.click();
	await category.click();
	await expect(palette).toHaveAttribute('data-early-tap', '');
	await expect(category).toHaveAttribute('data-early-tap', '');
	await expect(page.locator('html')).not.toHaveAttribute('data-started', /./);
	await expect(page.locator('html')).toHaveAttribute('data-palette', 'standard');
	release();
	await started(page);
	// The palette toggled once, not back again; the category opened.
	await expect(page.locator('html')).toHaveAttribute('data-palette', 'cb');
	await expect(palette).toHaveAttribute('aria-pressed', 'true');
	await expect(page).toHaveURL(/\/SPX\/classic\/gex_zero/);
	await expect(page.locator('[data-early-tap]')).toHaveCount(0);
	// Once started, a tap is the app's alone: one more toggles back, nothing replays it.
	await palette.click();
	await expect(page.locator('html')).toHaveAttribute('data-palette', 'standard');
});

test('a select picked before the app starts keeps the pick, and the page follows it', async ({
	page
}) => {
	const release = await holdScripts(page);
	await page.goto('/alerts', { waitUntil: 'commit' });
	const kind = page.getByTestId('rule-kind');
	// "A level moves" has no direction: the form drops that field once the pick is the app's.
	await kind.selectOption('level_move');
	await expect(kind).toHaveAttribute('data-early-tap', '');
	await expect(page.getByTestId('rule-direction')).toBeVisible();
	release();
	await started(page);
	await expect(kind).toHaveValue('level_move');
	await expect(page.getByTestId('rule-direction')).toHaveCount(0);
	await expect(kind).not.toHaveAttribute('data-early-tap');
});

test('a tap once the app has started is not kept or marked', async ({ page }) => {
	await page.goto('/SPX/classic/gex_full');
	await started(page);
	const palette = page.getByTestId('palette-toggle');
	await palette.click();
	await expect(page.locator('html')).toHaveAttribute('data-palette', 'cb');
	await expect(palette).not.toHaveAttribute('data-early-tap');
	expect(await page.evaluate(() => '__gexdeckEarly' in window)).toBe(false);
});
