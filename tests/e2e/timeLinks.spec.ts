import { expect, test, type Page } from '@playwright/test';

/**
 * Share links carry the day and the moment (`day`, `at`) on every time-aware view: placing the
 * Orderflow crosshair or scrubbing Classic writes `at` into the URL that Copy link copies, a
 * recorded day picked in the Orderflow view is `day`, and opening the copied link puts the
 * recipient on the same day and moment. (The heatmap's and the levels path's links are checked
 * in heatmap.spec.ts.)
 */

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

async function copyLink(page: Page): Promise<string> {
	await page.getByTestId('copy-link').click();
	await expect(page.getByTestId('copy-link')).toHaveText(/Copied/);
	return page.evaluate(() => navigator.clipboard.readText());
}

const cursorOf = async (page: Page) =>
	Number(await page.getByTestId('timeline').getAttribute('data-cursor'));

test('Orderflow: the crosshair and a recorded day travel in the copied link', async ({
	page,
	context
}) => {
	await page.goto('/SPX/orderflow');
	const timeline = page.getByTestId('timeline');
	await expect
		.poll(async () => Number(await timeline.getAttribute('data-points')), { timeout: 45_000 })
		.toBeGreaterThan(2);

	// A click places the crosshair; the URL (and so Copy link) carries its moment.
	const box = (await timeline.boundingBox())!;
	await page.mouse.click(box.x + box.width * 0.6, box.y + box.height * 0.4);
	const placed = await cursorOf(page);
	expect(placed).toBeGreaterThan(0);
	await expect(page).toHaveURL(new RegExp(`[?&]at=${placed}(&|$)`));
	// Leaving the chart with the mouse keeps the placed moment.
	await page.mouse.move(1, 1);
	expect(await cursorOf(page)).toBe(placed);
	const link = await copyLink(page);
	expect(link).toContain(`at=${placed}`);

	const other = await context.newPage();
	await other.goto(link);
	await expect.poll(() => cursorOf(other), { timeout: 45_000 }).toBe(placed);
	await other.close();

	// The day being recorded, picked as a recorded day: read from the server, no live points.
	const picker = page.getByTestId('day-picker');
	await expect(picker.locator('option')).toHaveCount(2, { timeout: 15_000 });
	const day = (await picker.locator('option').nth(1).getAttribute('value'))!;
	await picker.selectOption(day);
	await expect(page).toHaveURL(new RegExp(`[?&]day=${day}(&|$)`));
	await expect(page).not.toHaveURL(/[?&]at=/);
	await expect(page.getByTestId('past-day')).toContainText(day);
	await expect
		.poll(async () => Number(await timeline.getAttribute('data-points')), { timeout: 30_000 })
		.toBeGreaterThan(2);
	await timeline.focus();
	await page.keyboard.press('Home');
	const first = await cursorOf(page);
	await expect(page).toHaveURL(new RegExp(`day=${day}&at=${first}$`));
	const dayLink = await copyLink(page);

	const recipient = await context.newPage();
	await recipient.goto(dayLink);
	await expect(recipient.getByTestId('past-day')).toContainText(day);
	await expect.poll(() => cursorOf(recipient), { timeout: 45_000 }).toBe(first);
	await expect(recipient.getByTestId('readout-time')).toHaveText(/^\d\d:\d\d:\d\d ET$/);
	await recipient.screenshot({ path: 'test-results/orderflow-day-link.png' });
});

test('Classic: scrubbing writes the replayed moment into the link', async ({ page, context }) => {
	await page.goto('/SPX/classic/gex_full');
	const slider = page.getByTestId('replay-slider');
	await expect
		.poll(async () => Number(await slider.getAttribute('max')), { timeout: 45_000 })
		.toBeGreaterThan(4);
	await slider.focus();
	await page.keyboard.press('Home');
	await expect(page.getByTestId('replay')).toHaveAttribute('data-mode', 'replay');
	const moment = Number(await page.getByTestId('timestamp').getAttribute('data-unix'));
	await expect(page).toHaveURL(new RegExp(`[?&]at=${moment}(&|$)`));
	const link = await copyLink(page);

	const other = await context.newPage();
	await other.goto(link);
	await expect(other.getByTestId('replay')).toHaveAttribute('data-mode', 'replay', {
		timeout: 45_000
	});
	await expect
		.poll(async () => Number(await other.getByTestId('timestamp').getAttribute('data-unix')))
		.toBe(moment);

	// Back to live: the moment leaves the link.
	await page.getByTestId('replay-slider').focus();
	await page.keyboard.press('End');
	await expect(page.getByTestId('replay')).toHaveAttribute('data-mode', 'live');
	await expect(page).not.toHaveURL(/[?&]at=/);
});
