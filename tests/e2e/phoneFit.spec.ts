import { expect, test } from '@playwright/test';

/**
 * Every page at a phone's width (390x844): a title of its own, no horizontal scroll of the
 * page (wide tables scroll inside their box), and the error page for a bad address leads back.
 */

test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

const PAGES: [string, RegExp][] = [
	['/SPX/classic/gex_full', /^SPX gex_full · gexdeck$/],
	['/SPX/state/gex_full', /^SPX state gex_full · gexdeck$/],
	['/SPX/orderflow', /^SPX orderflow · gexdeck$/],
	['/SPX/heatmap/gex_full', /heatmap · gexdeck$/],
	['/SPX/research/gex_oi', /research · gexdeck$/],
	['/SPX/eod', /EOD report · gexdeck$/],
	['/levels/SPX', /^SPX levels · gexdeck$/],
	['/watchlist?t=SPX,NDX,RUT,SPY,QQQ', /^Watchlist · gexdeck$/],
	['/chain', / · gexdeck$/],
	['/alerts', /^Alerts · gexdeck$/],
	['/account', /^Account · gexdeck$/],
	['/NOPE/classic/gex_full', /^Page not found · gexdeck$/]
];

for (const [path, title] of PAGES) {
	test(`${path} fits a phone and has a title`, async ({ page }) => {
		await page.goto(path);
		await expect(page).toHaveTitle(title);
		// Data-filled tables (watchlist rows, the account's quota ledger) are the wide parts.
		if (path.startsWith('/watchlist')) {
			await expect(page.locator('[data-testid="row-spot"]').first()).toBeVisible({
				timeout: 30_000
			});
		}
		const widths = await page.evaluate(() => ({
			scroll: document.documentElement.scrollWidth,
			client: document.documentElement.clientWidth
		}));
		expect(widths.scroll, `${path} scrolls sideways`).toBeLessThanOrEqual(widths.client);
	});
}

test('a bad address gets a titled error page whose menu leads to a working view', async ({
	page
}) => {
	const res = await page.goto('/NOPE/classic/gex_full');
	expect(res?.status()).toBe(404);
	await expect(page.getByTestId('error-page')).toContainText("unknown ticker 'NOPE'");
	// The menu (on a phone, the bottom bar's More sheet) does not keep the bad ticker (every item
	// was another 404). Tapped once the app has started: a tap on the server's HTML before the
	// page hydrates opens nothing (the root layout marks <html data-started> when it mounts).
	await expect(page.locator('html[data-started]')).toBeAttached();
	await page.getByTestId('menu-more').tap();
	const menu = page.getByRole('navigation', { name: 'All views' });
	await expect(menu.getByRole('link', { name: 'State' })).toHaveAttribute(
		'href',
		'/SPX/state/gex_full'
	);
	await expect(menu.getByRole('link', { name: 'Classic' })).not.toHaveAttribute(
		'aria-current',
		'page'
	);
	await page.keyboard.press('Escape');
	await page.getByRole('link', { name: 'Open the SPX Classic view' }).click();
	await expect(page).toHaveURL(/\/SPX\/classic\/gex_full$/);
	await expect(page.locator('rect.bar, path.bar').first()).toBeVisible({ timeout: 30_000 });

	await page.goto('/SPX/classic/nope');
	await expect(page).toHaveTitle(/^Page not found · gexdeck$/);
	await expect(page.getByTestId('error-page')).toBeVisible();
});

test('controls on a phone are finger-sized (buttons, selects, summaries, checkbox labels)', async ({
	page
}) => {
	const views: [string, string][] = [
		['/SPX/orderflow', 'zoom-in'],
		['/SPX/research/iv_mid?view=skew', 'display-skew'],
		['/SPX/research/iv_mid', 'surface-reset'],
		['/chain', 'chain-pick'],
		['/alerts', 'rule-save']
	];
	for (const [path, ready] of views) {
		await page.goto(path);
		// A view's controls are a sheet on a phone: opened, so its buttons are measured too.
		const controls = page.getByTestId('controls-open');
		await expect
			.poll(async () => (await controls.isVisible()) || page.getByTestId(ready).isVisible(), {
				timeout: 30_000
			})
			.toBe(true);
		if (await controls.isVisible()) await controls.tap();
		await expect(page.getByTestId(ready)).toBeVisible({ timeout: 30_000 });
		if (path.includes('skew'))
			await expect(page.locator('[data-testid^="expiry-"]').first()).toBeVisible();
		// Research filters open, so their checkboxes are on screen.
		const filters = page.locator('details.filters');
		if ((await filters.count()) > 0) await filters.locator('summary').click();
		const small = await page.evaluate(() => {
			const targets = [
				...document.querySelectorAll('main button, main select, main summary'),
				...[...document.querySelectorAll('main input[type="checkbox"]')].map(
					(c) => c.closest('label') ?? c
				)
			];
			return targets
				.map((el) => ({ el, r: el.getBoundingClientRect() }))
				.filter(({ r }) => r.width > 0 && r.height > 0 && (r.width < 34 || r.height < 34))
				.map(
					({ el, r }) =>
						`${el.tagName} "${(el.textContent ?? '').trim().slice(0, 20)}" ${r.width}x${r.height}`
				);
		});
		expect(small, path).toEqual([]);
	}
});
