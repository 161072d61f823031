import { expect, test, type Page } from '@playwright/test';

/**
 * The GEX heatmap and the server's recording in Chromium: the live view fills from the
 * recording and appends columns, reads cells on hover and tap, zooms and pans by keys and
 * buttons; the day being recorded opens from the day picker and follows new records; Orderflow
 * opened mid-session starts its series from the server's recording. The dashboard records from its start (the
 * always-record list holds SPX).
 */

async function attr(page: Page, name: string): Promise<number> {
	return Number(await page.getByTestId('heatmap').getAttribute(name));
}

async function openLive(page: Page) {
	await page.goto('/SPX/heatmap/gex_full');
	await expect(page.getByTestId('heatmap')).toBeVisible({ timeout: 45_000 });
	await expect.poll(() => attr(page, 'data-columns'), { timeout: 30_000 }).toBeGreaterThan(2);
}

test('desktop: live heatmap appends columns, hover reads a cell, keys zoom and pan', async ({
	page
}) => {
	await openLive(page);
	// Not replaying: the scrubber's label says Play starts there, not that the map shows it.
	await expect(page.getByTestId('replay-time')).toHaveText(/^from \d\d:\d\d:\d\d ET$/);
	const first = await attr(page, 'data-columns');
	await expect.poll(() => attr(page, 'data-columns'), { timeout: 30_000 }).toBeGreaterThan(first);
	expect(await attr(page, 'data-rows')).toBeGreaterThan(10);
	// The draw time is for tests and benches (an attribute), not text shown to the user.
	await expect(page.getByTestId('heatmap')).toHaveAttribute('data-draw-ms', /^\d+\.\d$/);
	await expect(page.getByTestId('heatmap')).toHaveAttribute('data-draw-mode', /\w/);
	await expect(page.getByRole('toolbar', { name: 'Heatmap zoom' })).not.toContainText(/\bms\b/);
	expect(await page.locator('body').innerText()).not.toMatch(/draw [\d.]+ ms/);

	// Hover the newest columns near the middle row: strike, ET time and a value.
	const canvas = page.getByTestId('heatmap');
	const box = (await canvas.boundingBox())!;
	const t0 = await attr(page, 'data-t0');
	const t1 = await attr(page, 'data-t1');
	await canvas.hover({ position: { x: box.width * 0.8, y: box.height * 0.5 } });
	const readout = page.getByTestId('heatmap-readout');
	await expect(readout).toContainText(/Strike [\d,.]+ · \d\d:\d\d:\d\d ET/);

	// Keyboard: + zooms time in, ← pans back, Shift+- zooms strikes out, 0 resets.
	await canvas.focus();
	await page.keyboard.press('+');
	const zoomed = (await attr(page, 'data-t1')) - (await attr(page, 'data-t0'));
	expect(zoomed).toBeLessThan(t1 - t0);
	const beforePan = await attr(page, 'data-t0');
	await page.keyboard.press('ArrowLeft');
	expect(await attr(page, 'data-t0')).toBeLessThan(beforePan);
	const rows = await attr(page, 'data-row-count');
	await page.keyboard.press('Shift+-');
	expect(await attr(page, 'data-row-count')).toBeGreaterThanOrEqual(rows);
	await page.keyboard.press('ArrowDown');
	await page.keyboard.press('0');
	await page.screenshot({ path: 'test-results/heatmap-desktop.png' });
});

test.describe('phone', () => {
	test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

	test('tap reads a cell, buttons zoom both axes, a recorded day opens from the picker', async ({
		page
	}) => {
		await openLive(page);
		const canvas = page.getByTestId('heatmap');
		const box = (await canvas.boundingBox())!;
		await canvas.tap({ position: { x: box.width * 0.8, y: box.height * 0.4 } });
		await expect(page.getByTestId('heatmap-readout')).toContainText('Strike');
		const rows = await attr(page, 'data-row-count');
		await page.getByRole('button', { name: 'Zoom in strikes' }).tap();
		expect(await attr(page, 'data-row-count')).toBeLessThan(rows);
		const span = (await attr(page, 'data-t1')) - (await attr(page, 'data-t0'));
		await page.getByRole('button', { name: 'Zoom in time' }).tap();
		expect((await attr(page, 'data-t1')) - (await attr(page, 'data-t0'))).toBeLessThan(span);
		await page.screenshot({ path: 'test-results/heatmap-phone.png' });

		// The day being recorded is listed as such; opened as a recorded day it replays the day so
		// far and keeps following what the server records (it does not freeze at the pick). The
		// picker is in the view's controls, a sheet on a phone.
		await page.getByTestId('controls-open').tap();
		const picker = page.getByTestId('day-picker');
		await expect(picker.locator('option')).toHaveCount(2, { timeout: 15_000 });
		const day = await picker.locator('option').nth(1).getAttribute('value');
		await expect(picker.locator('option').nth(1)).toHaveText(`${day} (so far, following)`);
		await picker.selectOption(day!);
		await expect(page).toHaveURL(new RegExp(`day=${day}`));
		await page.keyboard.press('Escape');
		await expect(page.getByTestId('past-day')).toContainText(day!);
		// …and says so, rather than "not live".
		await expect(page.getByTestId('past-day')).toHaveAttribute('data-following', '1');
		await expect(page.getByTestId('past-day')).toContainText('still being recorded');
		// One column per 5 s of what the server has recorded so far, then the ones after it.
		await expect.poll(() => attr(page, 'data-columns'), { timeout: 30_000 }).toBeGreaterThan(0);
		const picked = await attr(page, 'data-columns');
		await expect
			.poll(() => attr(page, 'data-columns'), { timeout: 30_000 })
			.toBeGreaterThan(picked);
		// Touch on the past day: a tap on the recorded columns reads a cell of that day (the window
		// is the recorded span, however little).
		const dayBox = (await canvas.boundingBox())!;
		const mid = ((await attr(page, 'data-first')) + (await attr(page, 'data-last'))) / 2;
		const [t0, t1] = [await attr(page, 'data-t0'), await attr(page, 'data-t1')];
		const x =
			(await attr(page, 'data-plot-left')) +
			((mid - t0) / (t1 - t0)) * (await attr(page, 'data-plot-width'));
		await canvas.tap({ position: { x, y: dayBox.height * 0.5 } });
		await expect(page.getByTestId('heatmap-readout')).toContainText(
			/Strike [\d,.]+ · \d\d:\d\d:\d\d ET/
		);
		await page.screenshot({ path: 'test-results/heatmap-phone-day.png' });
	});
});

test('Orderflow opened mid-session starts its series from the server recording', async ({
	page
}) => {
	// The recorder has been writing SPX orderflow since the dashboard started.
	await page.waitForTimeout(3000);
	await page.goto('/SPX/orderflow');
	await expect(page.getByTestId('series-note')).toContainText("from the server's recording", {
		timeout: 30_000
	});
	// The note and the drawn points read at one moment (both move as live points arrive).
	const now = () =>
		page.evaluate(() => ({
			note: document.querySelector<HTMLElement>('[data-testid="series-note"]')!.innerText,
			points: Number(
				document.querySelector<HTMLElement>('[data-testid="timeline"]')!.dataset.points
			)
		}));
	const backfilledOf = (note: string) =>
		Number(/([\d,]+) from the server's recording/.exec(note)![1].replaceAll(',', ''));
	const first = await now();
	expect(backfilledOf(first.note)).toBeGreaterThan(2);
	await expect
		.poll(async () => {
			const { note, points } = await now();
			return points - backfilledOf(note);
		})
		.toBeGreaterThanOrEqual(0);
});

test('a recorded day replays: share link moment, step, play at 600x, scrubber in ET', async ({
	page
}) => {
	await openLive(page);
	const options = page.getByTestId('day-picker').locator('option');
	await expect(options).toHaveCount(2, { timeout: 15_000 });
	const day = (await options.nth(1).getAttribute('value'))!;
	// The first recorded calculation of the day, as a share link's moment.
	const first = Number(await page.getByTestId('heatmap').getAttribute('data-t0'));
	// The day is loaded once, from its overview: stepping and pausing write the moment to the
	// URL, which must not load it again (nor reset the window under the user's zoom); no raw
	// read of the whole day (a follow asks only for what came after the overview, `from=`).
	let loads = 0;
	let rawDays = 0;
	page.on('request', (r) => {
		const url = new URL(r.url());
		if (url.pathname === '/history/SPX/classic_gex_full/overview') loads++;
		if (url.pathname === '/history/SPX/classic_gex_full' && !url.searchParams.has('from')) {
			rawDays++;
		}
	});
	await page.goto(`/SPX/heatmap/gex_full?day=${day}&at=${Math.round(first) + 1}`);
	await expect(page.getByTestId('heatmap')).toBeVisible({ timeout: 30_000 });
	const time = page.getByTestId('replay-time');
	await expect(time).toHaveText(/^\d\d:\d\d:\d\d ET$/);
	const before = await time.innerText();
	await page.getByRole('button', { name: 'Next calculation' }).click();
	await expect(page).not.toHaveURL(new RegExp(`at=${Math.round(first) + 1}(&|$)`));
	await expect(time).not.toHaveText(before);
	const stepped = await time.innerText();
	await page.getByTestId('replay-speed').selectOption('600');
	await page.getByTestId('replay-play').click();
	await expect(time).not.toHaveText(stepped, { timeout: 10_000 });
	await page.getByTestId('replay-play').click();
	await expect(page).toHaveURL(new RegExp(`day=${day}&at=\\d+`));
	// At 1x a frame adds a small fraction of a second: the play still moves, second by second
	// (from the day's first calculation, paused there first: 600x may have reached the end).
	const play = page.getByTestId('replay-play');
	if ((await play.getAttribute('aria-pressed')) === 'true') await play.click();
	await expect(play).toHaveAttribute('aria-pressed', 'false');
	await page.getByTestId('replay-scrubber').focus();
	await page.keyboard.press('Home');
	const beforeSlow = await time.innerText();
	await page.getByTestId('replay-speed').selectOption('1');
	await play.click();
	await expect(play).toHaveAttribute('aria-pressed', 'true');
	await expect(time).not.toHaveText(beforeSlow, { timeout: 5_000 });
	await play.click();
	await expect(page).toHaveURL(new RegExp(`day=${day}&at=\\d+`));
	// Keyboard on the past day's heatmap: + zooms time in, − out again. (Panning is checked live:
	// here the replayed moment pulls the window back to itself.)
	const heat = page.getByTestId('heatmap');
	await heat.focus();
	const spanOf = async () => (await attr(page, 'data-t1')) - (await attr(page, 'data-t0'));
	// The pause wrote the moment to the URL; the window stays as it is (the day is not reloaded).
	const span = await spanOf();
	await page.keyboard.press('+');
	await expect.poll(spanOf).toBeLessThan(span);
	const zoomed = await spanOf();
	await page.keyboard.press('-');
	await expect.poll(spanOf).toBeGreaterThan(zoomed);
	expect(loads).toBe(1);
	expect(rawDays).toBe(0);
	// The scrubber is a native range: keys move it (back: at 600x the play may have reached the
	// day's last recorded second, where a step forward has nowhere to go).
	await page.getByTestId('replay-scrubber').focus();
	const paused = await time.innerText();
	await page.keyboard.press('ArrowLeft');
	await expect(time).not.toHaveText(paused);
	await page.screenshot({ path: 'test-results/heatmap-replay.png' });
});

test("the levels view draws today's path of spot, zero gamma and majors from the recording", async ({
	page
}) => {
	test.setTimeout(200_000);
	await page.setViewportSize({ width: 390, height: 844 });
	await page.goto('/levels/SPX');
	await expect(page.getByTestId('levels')).toBeVisible({ timeout: 30_000 });
	// One point per 10 s step of the day overview (a minute of raw records for a day without one).
	await expect(page.getByTestId('levels-path')).toBeVisible({ timeout: 150_000 });
	expect(Number(await page.getByTestId('levels-path').getAttribute('data-points'))).toBeGreaterThan(
		1
	);
	expect(await page.locator('[data-testid=levels-path] path.spot').getAttribute('d')).toMatch(
		/^M[\d.]+,[\d.]+L/
	);
	// Every axis label lies inside the chart (the close's "16:00" was cut at the right edge).
	const outside = await page
		.getByTestId('levels-path')
		.locator('svg')
		.evaluate((el) => {
			const box = el.getBoundingClientRect();
			return [...el.querySelectorAll('text')]
				.map((t) => ({ text: t.textContent, r: t.getBoundingClientRect() }))
				.filter(({ r }) => r.left < box.left - 1 || r.right > box.right + 1)
				.map(({ text, r }) => `${text} ${r.left}-${r.right} outside ${box.left}-${box.right}`);
		});
	expect(outside).toEqual([]);
	// It says which session it is: "Today" only when the path is of New York's date now; the
	// simulated market's replay of an earlier day, or a weekend, names that day.
	const shownDay = (await page.getByTestId('levels-path').getAttribute('data-day'))!;
	const etToday = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(
		new Date()
	);
	const caption = page.getByTestId('levels-path').locator('figcaption');
	if (shownDay === etToday) await expect(caption).toContainText(/^Today from/);
	else {
		const [y, m, d] = shownDay.split('-').map(Number);
		const label = new Date(Date.UTC(y, m - 1, d)).toLocaleDateString('en-US', {
			timeZone: 'UTC',
			weekday: 'short',
			month: 'short',
			day: 'numeric'
		});
		await expect(caption).toContainText(`The last session, ${label.replace(',', '')}, from`);
	}
	await page.screenshot({ path: 'test-results/levels-path.png' });

	// A click (a tap on a phone) marks a moment, with a readout and `at` in the link; Home marks
	// the first point.
	const path = page.getByTestId('levels-path');
	await path.locator('svg').click({ position: { x: 300, y: 60 } });
	await expect(page.getByTestId('levels-path-readout')).toContainText(/\d\d:\d\d:\d\d ET · spot/);
	const tapped = await path.getAttribute('data-at');
	await expect(page).toHaveURL(new RegExp(`[?&]at=${tapped}(&|$)`));
	// Keys: End marks the newest point, Home the first (the tap may have hit either: the few
	// recorded minutes sit within a pixel of each other on the session's axis). Each key writes
	// the URL; the navigation keeps the path and its focus, so one focus serves every key.
	await path.locator('svg').focus();
	await page.keyboard.press('End');
	await expect
		.poll(
			async () => (await path.getAttribute('data-at')) === (await path.getAttribute('data-last'))
		)
		.toBe(true);
	await expect(page).toHaveURL(new RegExp(`[?&]at=${await path.getAttribute('data-last')}(&|$)`));
	const first = (await path.getAttribute('data-first'))!;
	await page.keyboard.press('Home');
	await expect(path).toHaveAttribute('data-at', first);
	expect(
		await page.evaluate(() => document.activeElement?.closest('[data-testid=levels-path]') !== null)
	).toBe(true);
	expect(Number(first)).toBeLessThan(Number(await path.getAttribute('data-last')));
	await expect(page).toHaveURL(new RegExp(`[?&]at=${first}(&|$)`));

	// The day being recorded, as a recorded day: `day` joins the link, which reopens the same.
	const picker = page.getByTestId('day-picker');
	await expect(picker.locator('option')).toHaveCount(2, { timeout: 15_000 });
	const day = (await picker.locator('option').nth(1).getAttribute('value'))!;
	await picker.selectOption(day);
	await expect(page).toHaveURL(new RegExp(`[?&]day=${day}$`));
	await expect(page.getByTestId('levels-path')).toHaveAttribute('data-day', day);
	await page.getByTestId('levels-path').locator('svg').focus();
	await page.keyboard.press('Home');
	await expect(page).toHaveURL(new RegExp(`day=${day}&at=${first}$`));
	const reopened = await page.context().newPage();
	await reopened.setViewportSize({ width: 390, height: 844 });
	await reopened.goto(page.url());
	await expect(reopened.getByTestId('levels-path')).toHaveAttribute('data-at', first, {
		timeout: 30_000
	});
	await expect(reopened.getByTestId('levels-path')).toHaveAttribute('data-day', day);
	await reopened
		.getByTestId('levels-path')
		.screenshot({ path: 'test-results/levels-path-day.png' });
});

test("Classic's timeline opened mid-session reaches back before the tab; the Account page shows the recording", async ({
	page
}) => {
	await page.goto('/SPX/classic/gex_full');
	await expect(page.getByTestId('feed-mode')).toHaveAttribute('data-mode', 'stream', {
		timeout: 30_000
	});
	const liveAtOpen = Number(await page.getByTestId('timestamp').getAttribute('data-unix'));
	const slider = page.getByTestId('replay-slider');
	// The server has recorded since it started (a minute or more by now): a fresh tab's timeline
	// holds that, far more than the few seconds the tab has seen itself.
	await expect
		.poll(async () => Number(await slider.getAttribute('max')), { timeout: 30_000 })
		.toBeGreaterThan(8);
	await slider.focus();
	await page.keyboard.press('Home');
	await expect(page.getByTestId('replay')).toHaveAttribute('data-mode', 'replay');
	const oldest = Number(await page.getByTestId('timestamp').getAttribute('data-unix'));
	// Older than anything this tab saw (it opened a few seconds ago; the recording is older).
	expect(liveAtOpen - oldest).toBeGreaterThan(10);

	await page.goto('/account');
	const recording = page.getByTestId('recording');
	await expect(recording).toBeVisible();
	await expect(page.getByTestId('recording-bytes')).toContainText(
		/\d+(\.\d+)? (KB|MB|GB) of 5\.00 GB/
	);
	await expect(recording.getByLabel('Record even when no tab is open')).toHaveValue(/SPX/);
	await recording.screenshot({ path: 'test-results/account-recording.png' });
});
