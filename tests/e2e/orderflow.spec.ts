import { expect, test, type Page } from '@playwright/test';
import { useDemoAccount, watchRefusals } from './demoAccount';

async function points(page: Page): Promise<number> {
	return Number(await page.getByTestId('timeline').getAttribute('data-points'));
}

/**
 * The charts' windows as the series panel states them: the whole window fitted to the data
 * (t0-t1), the data's first and last point, and the shown (zoomed) window, read in one go.
 */
async function windows(page: Page) {
	return page.getByTestId('series').evaluate((el) => {
		const n = (k: string) => Number(el.getAttribute(k));
		const [lo, hi] = el.getAttribute('data-domain')!.split('-').map(Number);
		return {
			t0: n('data-t0'),
			t1: n('data-t1'),
			first: n('data-first'),
			last: n('data-last'),
			lo,
			hi
		};
	});
}

/** The time axis is the data's span (issue 25 item 12), not 09:30 to the close. */
function expectFitted(w: Awaited<ReturnType<typeof windows>>) {
	expect(w.t0).toBeGreaterThanOrEqual(w.first);
	expect(w.t1).toBeGreaterThanOrEqual(w.last);
	expect(w.t1 - w.t0).toBeLessThanOrEqual(Math.max(300, (w.last - w.t0) * 1.1 + 30) + 1);
}

/** Opens the view and waits until the session series holds at least `n` points. */
async function openWithPoints(page: Page, path: string, n: number) {
	await page.goto(path);
	await expect(page.getByTestId('timeline')).toBeVisible({ timeout: 30_000 });
	await expect.poll(() => points(page), { timeout: 30_000 }).toBeGreaterThanOrEqual(n);
}

test('the snapshot panel shows the service numbers for 0DTE and next expiry, signs coloured', async ({
	page
}) => {
	await page.goto('/SPX/orderflow');
	await expect(page.getByTestId('snapshot')).toBeVisible({ timeout: 30_000 });
	await expect(page.getByTestId('spot')).toHaveText(/^\d{1,3}(,\d{3})*\.\d{2}$/);
	const cells = await page.locator('[data-testid="snapshot"] td[data-field]').evaluateAll((tds) =>
		tds.map((td) => ({
			field: td.getAttribute('data-field')!,
			value: Number(td.getAttribute('data-value')),
			text: td.textContent!.trim(),
			cls: td.className
		}))
	);
	// All 34 metrics, 0DTE and next expiry, each a finite number with a readable text.
	expect(cells).toHaveLength(34);
	for (const c of cells) {
		expect(Number.isFinite(c.value), c.field).toBe(true);
		expect(c.text, c.field).not.toBe('');
	}
	expect(cells.filter((c) => c.value !== 0).length).toBeGreaterThan(25);
	// Major strikes are positive levels near spot; $ values are signed and coloured by sign.
	const spot = Number((await page.getByTestId('spot').innerText()).replaceAll(',', ''));
	for (const f of ['z_mlgamma', 'zero_mcall', 'one_mput']) {
		const c = cells.find((x) => x.field === f)!;
		expect(Math.abs(c.value - spot) / spot).toBeLessThan(0.1);
	}
	for (const f of ['agg_put_dex', 'net_dex', 'dexoflow', 'one_cvroflow', 'zvanna']) {
		const c = cells.find((x) => x.field === f)!;
		if (c.value > 0) expect(c.text).toMatch(/^\+\$/);
		if (c.value < 0) expect(c.text).toMatch(/^−\$/);
		expect(c.cls).toContain(c.value > 0 ? 'pos' : c.value < 0 ? 'neg' : 'num');
	}
	// Issue 25 item 12: a strike's grey number is a labelled distance, and the colours have a
	// reason on the page.
	await expect(page.getByTestId('from-spot').first()).toHaveText(/^[+−]?[\d,]+(\.\d+)? pts$/);
	await expect(page.getByTestId('snapshot-legend')).toContainText(
		/green.*positive.*red.*negative/s
	);
	// The panel is the service's payload: the same timestamp the REST route answers (or newer).
	const rest = (await (await page.request.get('/api/SPX/orderflow/orderflow')).json()) as {
		timestamp: number;
	};
	expect(rest.timestamp).toBeGreaterThan(0);
	await page.screenshot({ path: 'test-results/orderflow-spx.png', fullPage: true });
});

test('the session series gains points live, and the crosshair reads by hover and arrow keys', async ({
	page
}) => {
	await openWithPoints(page, '/SPX/orderflow', 3);
	const before = await points(page);
	await expect.poll(() => points(page), { timeout: 15_000 }).toBeGreaterThanOrEqual(before + 3);
	for (const id of ['dexoflow', 'one_gexoflow', 'cvroflow', 'spot']) {
		const path = page.locator(`path.line[data-series="${id}"]`);
		await expect(path).toHaveCount(1);
		expect(Number(await path.getAttribute('data-points'))).toBeGreaterThan(1);
		expect((await path.getAttribute('d'))!.length).toBeGreaterThan(10);
	}

	// Zoom onto the last minutes so single points are far apart, then hover the latest point.
	const timeline = page.getByTestId('timeline');
	await page.getByTestId('zoom-in').click();
	for (let i = 0; i < 6; i++) await page.getByTestId('zoom-in').click();
	const box = (await timeline.boundingBox())!;
	await page.mouse.move(box.x + box.width - 12, box.y + 60);
	await expect(page.getByTestId('crosshair-readout')).toContainText('crosshair');
	// The crosshair is drawn on every chart (a vertical line has no area: count, not visibility).
	await expect(page.locator('line.cursor')).toHaveCount(4);
	const hovered = await page.getByTestId('readout-time').innerText();
	expect(hovered).toMatch(/^\d{2}:\d{2}:\d{2} ET$/);

	// Arrow keys walk the points: left goes back in time, right comes back.
	await timeline.focus();
	await page.keyboard.press('ArrowLeft');
	await page.keyboard.press('ArrowLeft');
	const back = await page.getByTestId('readout-time').innerText();
	expect(back < hovered).toBe(true);
	await page.keyboard.press('ArrowRight');
	const forward = await page.getByTestId('readout-time').innerText();
	expect(forward > back).toBe(true);
	// Every chart reads the same instant: one value per drawn line, all numbers.
	for (const id of ['dexoflow', 'one_dexoflow', 'gexoflow', 'spot']) {
		await expect(page.getByTestId(`value-${id}`)).toContainText(/\d/);
	}
	await page.screenshot({ path: 'test-results/orderflow-crosshair.png' });
});

test('wheel and buttons zoom one shared window that lives in the URL', async ({ page }) => {
	await openWithPoints(page, '/SPX/orderflow', 2);
	const fitted = await windows(page);
	expectFitted(fitted);
	expect([fitted.lo, fitted.hi]).toEqual([fitted.t0, fitted.t1]);
	const timeline = page.getByTestId('timeline');
	const box = (await timeline.boundingBox())!;
	await page.mouse.move(box.x + box.width / 2, box.y + 80);
	await page.mouse.wheel(0, -400);
	await expect(page).toHaveURL(/zoom=\d{4,6}-\d{4,6}/);
	// All charts share the window.
	const labels = await page
		.locator('svg.time-lines')
		.evaluateAll((svgs) => svgs.map((s) => s.getAttribute('aria-label')!.replace(/^[^,]+, /, '')));
	expect(new Set(labels).size).toBe(1);
	const zoomed = await windows(page);
	expect(zoomed.hi - zoomed.lo).toBeLessThan(zoomed.t1 - zoomed.t0);
	await page.getByTestId('zoom-reset').click();
	await expect(page).not.toHaveURL(/zoom=/);
	// Reset shows the whole data again, fitted to it.
	await expect
		.poll(async () => {
			const w = await windows(page);
			return w.lo === w.t0 && w.hi === w.t1;
		})
		.toBe(true);
	expectFitted(await windows(page));
});

test('a share link round-trips charts, expiries, zoom and theme', async ({ page, browser }) => {
	// The theme follows the system until chosen: from a dark system the toggle picks light.
	await page.emulateMedia({ colorScheme: 'dark' });
	await openWithPoints(page, '/NDX/orderflow', 1);
	await page.getByTestId('chart-toggle-cvr').click();
	await expect(page).toHaveURL(/charts=dex,gex,spot/);
	await page.getByTestId('expiry-one').click();
	await expect(page).toHaveURL(/exp=zero/);
	await page.getByTestId('zoom-in').click();
	await expect(page).toHaveURL(/zoom=\d/);
	await page.getByTestId('theme-toggle').click();
	await expect(page).toHaveURL(/theme=light/);
	await expect(page.getByTestId('chart-cvr')).toHaveCount(0);
	await expect(page.locator('path.line[data-series="one_dexoflow"]')).toHaveCount(0);
	const shared = page.url();
	expect([...new URL(shared).searchParams.keys()].sort()).toEqual([
		'charts',
		'exp',
		'theme',
		'zoom'
	]);
	const label = await page.getByTestId('chart-dex').getAttribute('aria-label');

	const other = await browser.newContext();
	const p2 = await other.newPage();
	await openWithPoints(p2, shared.replace(/^https?:\/\/[^/]+/, ''), 1);
	await expect(p2).toHaveURL(shared);
	await expect(p2.locator('html')).toHaveAttribute('data-theme', 'light');
	await expect(p2.getByTestId('chart-toggle-cvr')).toHaveAttribute('aria-pressed', 'false');
	await expect(p2.getByTestId('expiry-one')).toHaveAttribute('aria-pressed', 'false');
	await expect(p2.getByTestId('expiry-zero')).toBeDisabled();
	await expect(p2.getByTestId('chart-cvr')).toHaveCount(0);
	await expect(p2.getByTestId('chart-dex')).toHaveAttribute('aria-label', label!);
	await expect(p2.locator('path.line[data-series="dexoflow"]')).toHaveCount(1);
	await expect(p2.locator('path.line[data-series="one_dexoflow"]')).toHaveCount(0);
	await p2.screenshot({ path: 'test-results/orderflow-shared-light.png', fullPage: true });
	await other.close();

	// A bad link says what is wrong instead of showing a broken view.
	const bad = await page.goto('/NDX/orderflow?zoom=0900-1000');
	expect(bad?.status()).toBe(404);
	await expect(page.locator('body')).toContainText('09:30-16:00');
});

test('on a phone: no sideways scroll, a tap reads the crosshair, a pinch zooms', async ({
	browser
}) => {
	const ctx = await browser.newContext({
		viewport: { width: 390, height: 844 },
		hasTouch: true,
		isMobile: true
	});
	const page = await ctx.newPage();
	await openWithPoints(page, '/SPX/orderflow', 2);
	expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
	// The charts on the first screen, above the snapshot's table (issue 25 item 5).
	expect((await page.getByTestId('timeline').boundingBox())!.y).toBeLessThan(844 - 200);
	expect((await page.getByTestId('timeline').boundingBox())!.y).toBeLessThan(
		(await page.getByTestId('snapshot').boundingBox())!.y
	);
	expectFitted(await windows(page));
	const timeline = page.getByTestId('timeline');
	await timeline.scrollIntoViewIfNeeded();
	const box = (await timeline.boundingBox())!;
	await page.touchscreen.tap(box.x + box.width / 2, box.y + 100);
	await expect(page.getByTestId('crosshair-readout')).toContainText('crosshair');

	// Two fingers spreading apart (Chromium turns the touches into pointer events).
	const cdp = await ctx.newCDPSession(page);
	// Spread around the drawn data (the session so far), so the zoomed window shows it.
	const line = (await page.locator('path.line[data-series="spot"]').boundingBox())!;
	const y = box.y + 100;
	const cx = Math.max(box.x + 130, Math.min(box.x + box.width - 130, line.x + line.width));
	const fingers = (d: number) => [
		{ x: cx - d, y, id: 1 },
		{ x: cx + d, y, id: 2 }
	];
	await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: fingers(20) });
	for (let d = 25; d <= 120; d += 5) {
		await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: fingers(d) });
	}
	await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
	await expect(page).toHaveURL(/zoom=\d{4,6}-\d{4,6}/);
	const pinched = await windows(page);
	expect(pinched.hi - pinched.lo).toBeLessThan(pinched.t1 - pinched.t0);
	await page.screenshot({ path: 'test-results/orderflow-phone.png', fullPage: true });
	await ctx.close();
});

test("a reload repaints today's series from IndexedDB before new data", async ({ page }) => {
	await openWithPoints(page, '/QQQ/orderflow', 4);
	const seen = await points(page);
	await page.waitForTimeout(2_600); // one flush interval
	// The upstream answers nothing after the reload: what is drawn comes from this browser.
	await page.route('**/api/**', (route) => route.abort('internetdisconnected'));
	await page.reload();
	await expect(page.getByTestId('timeline')).toBeVisible();
	// The stored day is read asynchronously (the cached snapshot may paint a moment earlier).
	await expect
		.poll(async () => Number(await page.getByTestId('series').getAttribute('data-restored')))
		.toBeGreaterThanOrEqual(seen);
	expect(await points(page)).toBeGreaterThanOrEqual(seen);
	await expect(page.getByTestId('series-note')).toContainText('restored from this browser');
	await expect(page.locator('path.line[data-series="spot"]')).toHaveAttribute(
		'data-points',
		/^[1-9]\d*$/
	);
});

test('an Orderflow-level account polls REST and still builds the series', async ({ page }) => {
	try {
		await useDemoAccount(page, 'demo-orderflow');
		await openWithPoints(page, '/SPX/orderflow', 1);
		await expect(page.getByTestId('feed-mode')).toHaveAttribute('data-mode', 'polling');
		const before = await points(page);
		await expect.poll(() => points(page), { timeout: 15_000 }).toBeGreaterThanOrEqual(before + 2);
		// The badge says what the data is (live in market hours, else the replayed session).
		await expect(page.getByTestId('freshness')).toHaveAttribute('data-kind', /^(live|replay)$/);
	} finally {
		await useDemoAccount(page, 'demo-research');
	}
});

test('a Classic-only key sees the Orderflow view locked, with the reason, without asking', async ({
	page
}) => {
	try {
		await useDemoAccount(page, 'demo-classic');
		// The server knows the account's entitlements: the locked route is not fetched (a refused
		// fetch would answer 403 and log a console error).
		const seen = watchRefusals(page);
		await page.goto('/SPX/orderflow');
		const locked = page.getByTestId('locked');
		await expect(locked).toBeVisible();
		await expect(locked).toContainText('Orderflow package');
		await expect(page.getByTestId('snapshot')).toHaveCount(0);
		await expect(page.getByTestId('series')).toHaveCount(0);
		await page.waitForLoadState('networkidle');
		await page.waitForTimeout(1_500);
		expect(seen.forbidden).toEqual([]);
		expect(seen.consoleErrors).toEqual([]);
		await page.screenshot({ path: 'test-results/orderflow-locked.png' });
	} finally {
		await useDemoAccount(page, 'demo-research');
	}
});
