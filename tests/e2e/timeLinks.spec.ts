import { expect, test, type Page } from '@playwright/test';

/**
 * Share links carry the day and the moment (`day`, `at`) on every time-aware view: placing the
 * Orderflow crosshair or scrubbing Classic writes `at` into the URL that Copy link copies, a
 * recorded day picked in the Orderflow or Classic view is `day`, and opening the copied link puts
 * the recipient on the same day and moment. (The heatmap's and the levels path's links are
 * checked in heatmap.spec.ts.) The recorded day is the one the dashboard is recording: it records
 * SPX from its start, on the embedded service's fast session clock.
 */

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

async function copyLink(page: Page): Promise<string> {
	await page.getByTestId('copy-link').click();
	await expect(page.getByTestId('copy-link')).toHaveText(/Copied/);
	return page.evaluate(() => navigator.clipboard.readText());
}

/**
 * The day picker's option of the day the dashboard is recording: the live data's ET day (other
 * specs record past days of SPX into the same data folder, so the list may hold more).
 */
async function recordingDay(page: Page): Promise<string> {
	const stamp = page.getByTestId('timestamp').first();
	await expect(stamp).toHaveAttribute('data-unix', /^\d+$/, { timeout: 45_000 });
	const unix = Number(await stamp.getAttribute('data-unix'));
	const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(
		new Date(unix * 1000)
	);
	await expect(page.getByTestId('day-picker').locator(`option[value="${day}"]`)).toHaveCount(1, {
		timeout: 45_000
	});
	return day;
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
	// (orderflowDay.spec records a past day of SPX orderflow into the same folder.)
	const picker = page.getByTestId('day-picker');
	const day = await recordingDay(page);
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
	const moment = await shown(page);
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

/**
 * The data time Classic shows, once its chart is of the replayed moment (a moment of the day's
 * overview is one record read when scrubbed to; the chart holds the one before meanwhile).
 */
async function shown(p: Page): Promise<number> {
	const replay = p.getByTestId('replay');
	await expect
		.poll(async () => {
			const at = await replay.getAttribute('data-at');
			return at === '' || at === (await p.locator('.charts').first().getAttribute('data-moment'));
		})
		.toBe(true);
	return Number(await p.getByTestId('timestamp').getAttribute('data-unix'));
}

test('Classic: a recorded day opens at the linked moment; Today (live) returns', async ({
	page,
	context
}) => {
	await page.goto('/SPX/classic/gex_full');
	await expect(page.getByTestId('feed-mode')).toBeVisible({ timeout: 45_000 });
	const slider = page.getByTestId('replay-slider');
	// A recorded day is read once: wait until the server holds a few snapshots of today.
	await expect
		.poll(async () => Number(await slider.getAttribute('max')), { timeout: 45_000 })
		.toBeGreaterThan(6);

	// The picker lists the day being recorded; picked, the view leaves the live feed.
	const picker = page.getByTestId('day-picker');
	const day = await recordingDay(page);
	await picker.selectOption(day);
	await expect(page).toHaveURL(new RegExp(`[?&]day=${day}$`));
	await expect(page.getByTestId('past-day')).toContainText(day);
	await expect(page.getByTestId('feed-mode')).toHaveCount(0);
	const replay = page.getByTestId('replay');
	await expect(replay).toHaveAttribute('data-day', day);
	// The slider ends at the day's last snapshot (no live edge).
	await expect
		.poll(async () => Number(await slider.getAttribute('max')), { timeout: 30_000 })
		.toBeGreaterThan(3);
	await expect(slider).toHaveValue((await slider.getAttribute('max'))!);

	// Keyboard on the day's timeline: Home is its first snapshot, → steps; the moment is `at`.
	await slider.focus();
	await page.keyboard.press('Home');
	const first = await shown(page);
	await page.keyboard.press('ArrowRight');
	await page.keyboard.press('ArrowRight');
	const moment = await shown(page);
	expect(moment).toBeGreaterThan(first);
	await page.keyboard.press('ArrowRight');
	const next = await shown(page);
	expect(next).toBeGreaterThan(moment);
	await page.keyboard.press('ArrowLeft');
	await expect.poll(() => shown(page)).toBe(moment);
	await expect(page).toHaveURL(new RegExp(`day=${day}&at=${moment}$`));
	const link = await copyLink(page);
	expect(link).toMatch(new RegExp(`day=${day}&at=${moment}$`));

	// A link to a second between two calculations shows the nearest one: its data time.
	const between = moment + Math.floor((next - moment) / 2);
	const other = await context.newPage();
	await other.goto(`/SPX/classic/gex_full?day=${day}&at=${between}`);
	await expect.poll(() => shown(other), { timeout: 45_000 }).toBe(moment);
	await expect(other.getByTestId('day-picker')).toHaveValue(day);
	await expect(other.getByTestId('replay-time')).toHaveText(/^\d\d:\d\d:\d\d ET$/);
	await expect(other.getByTestId('feed-mode')).toHaveCount(0);
	await other.screenshot({ path: 'test-results/classic-day.png', fullPage: true });
	// The copied link opens the same moment.
	await other.goto(link);
	await expect.poll(() => shown(other), { timeout: 45_000 }).toBe(moment);
	// The bar's Today (live) button returns to live: no day, no moment, the feed on.
	await other.getByTestId('replay-today').click();
	await expect(other).not.toHaveURL(/[?&](day|at)=/);
	await expect(other.getByTestId('feed-mode')).toBeVisible({ timeout: 30_000 });
	await expect(other.getByTestId('replay')).toHaveAttribute('data-mode', 'live');
	await other.close();

	// So does the picker's Today (live): live calculations again, newer than the day's moment.
	await picker.selectOption('');
	await expect(page).not.toHaveURL(/[?&](day|at)=/);
	await expect(page.getByTestId('feed-mode')).toBeVisible({ timeout: 30_000 });
	await expect(replay).toHaveAttribute('data-mode', 'live');
	await expect(replay).toHaveAttribute('data-day', '');
	// Live calculations again: the shown time moves on by itself. (No order against the day's
	// moment: at the close the embedded service's clock goes back to replay the session.)
	const live = await shown(page);
	await expect.poll(() => shown(page), { timeout: 30_000 }).not.toBe(live);
});

test('Classic on a day without a session says so; a day beyond the history is an error', async ({
	page
}) => {
	await page.goto('/SPX/classic/gex_full');
	const day = await recordingDay(page);
	// The Sunday before the recorded day: neither recorded here nor in the service's history.
	const d = new Date(`${day}T12:00:00Z`);
	d.setUTCDate(d.getUTCDate() - (d.getUTCDay() || 7));
	const sunday = d.toISOString().slice(0, 10);
	await page.goto(`/SPX/classic/gex_full?day=${sunday}`);
	await expect(page.getByTestId('day-empty')).toContainText(
		`Nothing was recorded for SPX gex_full on ${sunday}`,
		{ timeout: 30_000 }
	);
	await expect(page.getByTestId('replay-slider')).toBeDisabled();
	await expect(page.getByTestId('feed-mode')).toHaveCount(0);

	await page.goto('/SPX/classic/gex_full?day=2020-01-02');
	await expect(page.getByTestId('day-error')).toContainText("The service's history", {
		timeout: 30_000
	});
	await page.screenshot({ path: 'test-results/classic-day-error.png' });
});

test.describe('phone', () => {
	test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

	test('Classic on a recorded day: a tap on the timeline picks a moment of that day', async ({
		page
	}) => {
		await page.goto('/SPX/classic/gex_full');
		const slider = page.getByTestId('replay-slider');
		// A recorded day is read once: wait until the server holds a few snapshots of today.
		await expect
			.poll(async () => Number(await slider.getAttribute('max')), { timeout: 45_000 })
			.toBeGreaterThan(6);
		// The day picker is in the view's controls: a sheet on a phone, closed again after the pick.
		await page.getByTestId('controls-open').tap();
		const picker = page.getByTestId('day-picker');
		const day = await recordingDay(page);
		await picker.selectOption(day);
		await page.keyboard.press('Escape');
		await expect(picker).toBeHidden();
		await expect
			.poll(async () => Number(await slider.getAttribute('max')), { timeout: 30_000 })
			.toBeGreaterThan(3);
		const last = Number(await page.getByTestId('timestamp').getAttribute('data-unix'));
		const box = (await slider.boundingBox())!;
		await slider.tap({ position: { x: 4, y: box.height / 2 } });
		await expect
			.poll(async () => Number(await page.getByTestId('timestamp').getAttribute('data-unix')))
			.toBeLessThan(last);
		await expect(page).toHaveURL(new RegExp(`day=${day}&at=\\d+$`));
		await page.screenshot({ path: 'test-results/classic-day-phone.png', fullPage: true });
	});
});
