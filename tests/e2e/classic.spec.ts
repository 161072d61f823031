import { expect, test, type Page } from '@playwright/test';

async function barHeights(page: Page): Promise<string[]> {
	return page
		.locator('rect.bar')
		.evaluateAll((rects) =>
			rects.map(
				(r) =>
					`${r.getAttribute('data-strike')}:${r.getAttribute('height')}:${r.getAttribute('class')}`
			)
		);
}

/**
 * How far the drawn bars' profile is from a chain's OI column: each bar's height and each
 * strike's |GEX by OI|, both as a fraction of their largest, their mean absolute difference
 * (0: the same profile; the full chain's near-spot profile is far from the 0DTE chain's).
 */
async function profileDistance(page: Page, route: string): Promise<number> {
	const chain = (await (await page.request.get(route)).json()) as {
		strikes: [number, number, number][];
	};
	const oi = new Map(chain.strikes.map(([s, , v]) => [String(s), Math.abs(v)]));
	const bars = (await barHeights(page))
		.map((r) => r.split(':'))
		.filter(([strike]) => oi.has(strike))
		.map(([strike, height]) => [Number(height), oi.get(strike)!] as const);
	if (bars.length < 5) return Infinity;
	const maxH = Math.max(...bars.map(([h]) => h));
	const maxV = Math.max(...bars.map(([, v]) => v));
	return bars.reduce((sum, [h, v]) => sum + Math.abs(h / maxH - v / maxV), 0) / bars.length;
}

test('the histogram renders bars and levels for SPX', async ({ page }) => {
	await page.goto('/SPX/classic/gex_full');
	const bars = page.locator('rect.bar');
	await expect(bars.first()).toBeVisible();
	expect(await bars.count()).toBeGreaterThan(10);
	await expect(page.locator('line[data-level="spot"]')).toHaveCount(1);
	// The automatic window takes in the majors when they are near; one further out is named at
	// the edge it lies past (the simulated market decides which): never silently missing.
	for (const id of ['mpos', 'mneg']) {
		await expect(
			page.locator(`line[data-level="${id}"], text[data-level-off="${id}"]`),
			id
		).toHaveCount(1);
	}
	await expect(page.getByTestId('spot')).toHaveText(/^\d{1,3}(,\d{3})*\.\d{2}$/);
	// Both signs are drawn and the axis has readable numbers.
	expect(await page.locator('rect.bar.pos').count()).toBeGreaterThan(0);
	expect(await page.locator('rect.bar.neg').count()).toBeGreaterThan(0);
	expect(await page.locator('.y-axis text').count()).toBeGreaterThan(3);
	await page.screenshot({ path: 'test-results/classic-spx.png' });
	// Hover reads out a strike.
	const box = (await page.getByTestId('histogram').boundingBox())!;
	await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
	await expect(page.getByTestId('readout')).toContainText('from spot');
});

test('the histogram keys move the cursor the way the axis runs: → higher strikes, ← lower', async ({
	page
}) => {
	await page.goto('/SPX/classic/gex_full');
	await expect(page.locator('rect.bar').first()).toBeVisible();
	const hist = page.getByTestId('histogram');
	const strike = async () => Number(await hist.getAttribute('aria-valuenow'));
	await hist.focus();
	await expect(hist).toHaveAttribute('aria-valuetext', 'no strike selected');
	const spot = await strike();
	await page.keyboard.press('ArrowRight');
	await expect(hist).toHaveAttribute('aria-valuetext', /^strike /);
	const first = await strike();
	expect(first).toBeGreaterThan(spot);
	await page.keyboard.press('ArrowRight');
	await expect.poll(strike).toBeGreaterThan(first);
	const second = await strike();
	await expect(page.locator(`rect.bar.selected[data-strike="${second}"]`)).toHaveCount(1);
	await page.keyboard.press('ArrowLeft');
	await expect.poll(strike).toBe(first);
	await page.keyboard.press('ArrowLeft');
	await page.keyboard.press('ArrowLeft');
	await expect.poll(strike).toBeLessThan(spot);
});

test('levels outside a zoomed window are named at the edge they lie past', async ({ page }) => {
	await page.goto('/SPX/classic/gex_full');
	await expect(page.locator('rect.bar').first()).toBeVisible();
	const strikes = (await page
		.locator('rect.bar')
		.evaluateAll((rects) => rects.map((r) => Number(r.getAttribute('data-strike'))))) as number[];
	const spot = Number((await page.getByTestId('spot').textContent())!.replace(/,/g, ''));
	// A window of strikes wholly below spot: spot lies past its right edge.
	const below = strikes.filter((k) => k < spot - 20).slice(0, 4);
	await page.goto(`/SPX/classic/gex_full?zoom=${below[0]}-${below[below.length - 1]}`);
	await expect(page.locator('line[data-level="spot"]')).toHaveCount(0);
	const off = page.locator('text[data-level-off="spot"]');
	await expect(off).toHaveText(/^spot [\d,]+\.\d{2} ▶/);
	await expect(off).toHaveAttribute('text-anchor', 'end');
});

test('switching category and metric changes the data', async ({ page }) => {
	await page.goto('/SPX/classic/gex_full');
	await expect(page.locator('rect.bar').first()).toBeVisible();

	// Metric: the bar signs follow the OI column of the chain once OI is chosen.
	await page.getByTestId('metric-oi').click();
	await expect(page).toHaveURL(/metric=oi/);
	await expect(page.getByTestId('histogram')).toHaveAttribute('aria-label', /by OI/);
	await expect
		.poll(async () => {
			const chain = (await (await page.request.get('/api/SPX/classic/gex_full')).json()) as {
				strikes: [number, number, number][];
			};
			const oiSign = new Map(
				chain.strikes.map(([s, , oi]) => [String(s), oi >= 0 ? 'pos' : 'neg'])
			);
			const rendered = await barHeights(page);
			const agree = rendered.filter((r) => {
				const [strike, , cls] = r.split(':');
				return cls.includes(oiSign.get(strike) ?? 'none');
			});
			return agree.length / rendered.length;
		})
		.toBeGreaterThan(0.9);

	// Category: the 0DTE chain is drawn. It comes by REST or, when the relay already holds the
	// group (the recorder streams SPX's Classic categories), by the stream before any poll: the
	// drawn bars are compared with the 0DTE chain itself (fresh-clone run of stop 41 saw no fetch).
	const before = await barHeights(page);
	await page.getByTestId('category-gex_zero').click();
	await expect(page).toHaveURL(/\/SPX\/classic\/gex_zero\?metric=oi$/);
	await expect.poll(async () => (await barHeights(page)).join()).not.toBe(before.join());
	await expect
		.poll(async () => profileDistance(page, '/api/SPX/classic/gex_zero'), { timeout: 20_000 })
		.toBeLessThan(0.05);
	await expect(page.getByTestId('category-gex_zero')).toHaveAttribute('aria-pressed', 'true');
});

test('a share link round-trips the whole view state', async ({ page, browser }) => {
	// The theme follows the system until chosen: from a dark system the toggle picks light.
	await page.emulateMedia({ colorScheme: 'dark' });
	await page.goto('/NDX/classic/gex_one');
	await expect(page.locator('rect.bar').first()).toBeVisible();
	await page.getByTestId('metric-oi').click();
	// The toolbar's zoom (the price chart beside the histogram has its own).
	await page.getByTestId('zoom-in').first().click();
	await page.getByTestId('overlay-priors').click();
	await page.getByTestId('theme-toggle').click();
	await expect(page).toHaveURL(/zoom=\d/);
	await expect(page).toHaveURL(/theme=light/);
	const shared = page.url();
	const url = new URL(shared);
	expect([...url.searchParams.keys()].sort()).toEqual(['metric', 'ov', 'theme', 'zoom']);
	const label = await page.getByTestId('histogram').getAttribute('aria-label');

	// A fresh browser (no cookies, no cache) opening the link sees the same view.
	const other = await browser.newContext();
	const p2 = await other.newPage();
	await p2.goto(shared);
	await expect(p2.locator('rect.bar').first()).toBeVisible();
	await expect(p2).toHaveURL(shared);
	await expect(p2.locator('html')).toHaveAttribute('data-theme', 'light');
	await expect(p2.getByTestId('metric-oi')).toHaveAttribute('aria-pressed', 'true');
	await expect(p2.getByTestId('category-gex_one')).toHaveAttribute('aria-pressed', 'true');
	await expect(p2.getByTestId('overlay-priors')).toHaveAttribute('aria-pressed', 'false');
	await expect(p2.getByTestId('histogram')).toHaveAttribute('aria-label', label!);
	expect(await p2.locator('.priors').count()).toBe(0);
	await p2.screenshot({ path: 'test-results/shared-light.png' });
	await other.close();
});

test('the home page returns to the last view', async ({ page }) => {
	await page.goto('/QQQ/classic/gex_zero?metric=oi');
	await expect(page.locator('rect.bar').first()).toBeVisible();
	await page.goto('/');
	await expect(page).toHaveURL(/\/QQQ\/classic\/gex_zero\?metric=oi$/);
});

test('the ticker picker searches the /tickers list by keyboard', async ({ page }) => {
	await page.goto('/SPX/classic/gex_full?metric=oi');
	await expect(page.locator('rect.bar').first()).toBeVisible();
	const search = page.getByTestId('ticker-search');
	await search.click();
	await search.fill('nvd');
	await expect(page.getByRole('option', { name: /NVDA/ })).toBeVisible();
	await search.press('Enter');
	await expect(page).toHaveURL(/\/NVDA\/classic\/gex_full\?metric=oi$/);
	// Tab leaves the open list for the next control (the ticker options are not Tab stops).
	await search.press('ArrowDown');
	const list = page.getByRole('listbox');
	await expect(list.getByRole('option').first()).toBeVisible();
	await search.press('Tab');
	await expect(list).toHaveCount(0);
	expect(await page.evaluate(() => !!document.activeElement?.closest('[role="listbox"]'))).toBe(
		false
	);
	// The embedded service may still be computing a ticker nobody asked for: the page says so
	// and retries until the chain arrives.
	await expect(page.locator('rect.bar').first()).toBeVisible({ timeout: 45_000 });
});

test('a wide strike window draws its bars as paths and still reads out and highlights a strike', async ({
	page
}) => {
	// The whole SPX chain (strikes every 5 points near the money) holds more than the 60 bars
	// drawn one element each.
	await page.goto('/SPX/classic/gex_full');
	await expect(page.locator('rect.bar').first()).toBeVisible();
	const spot = Number((await page.getByTestId('spot').textContent())!.replace(/,/g, ''));
	const lo = Math.round(spot / 5) * 5 - 1000;
	await page.goto(`/SPX/classic/gex_full?zoom=${lo - 4000}-${lo + 6000}`);
	const bars = page.locator('g.bars');
	await expect(bars).toHaveAttribute('data-dense', 'paths');
	expect(Number(await bars.getAttribute('data-bars'))).toBeGreaterThan(60);
	const d = await page.locator('path.bar.pos').getAttribute('d');
	const n = await page.locator('path.bar.neg').getAttribute('d');
	// Every bar is one closed subpath in the fill of its sign.
	const subpaths = (d ?? '').split('z').length - 1 + ((n ?? '').split('z').length - 1);
	expect(subpaths).toBe(Number(await bars.getAttribute('data-bars')));
	// Hover still reads a strike and the selected bar is drawn on top.
	const box = (await page.getByTestId('histogram').boundingBox())!;
	await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
	await expect(page.getByTestId('readout')).toContainText('from spot');
	await expect(page.locator('rect.bar.selected')).toHaveCount(1);
});

test('the service-day field shows a focus ring when reached by keyboard from either side', async ({
	page
}) => {
	await page.goto('/SPX/classic/gex_full');
	await expect(page.locator('rect.bar').first()).toBeVisible();
	const ring = () =>
		page.evaluate(() => {
			const el = document.activeElement as HTMLElement;
			return `${el.dataset.testid} ${getComputedStyle(el).outlineStyle}`;
		});
	await page.getByTestId('day-picker').focus();
	await page.keyboard.press('Tab');
	expect(await ring()).toBe('service-day solid');
	// Back from Copy link, the focus lands on the field's calendar button (inside the field).
	await page.getByTestId('copy-link').focus();
	await page.keyboard.press('Shift+Tab');
	expect(await ring()).toBe('service-day solid');
});
