/**
 * The State views end to end, against the payload profile the embedded service was started
 * with: `observed` (default: net greek profiles with null put fields, State OI side and zero
 * gamma 0) or `documented` (GEXDECK_SERVICE_PAYLOADS=documented: the call/put split, every
 * field filled). scripts/e2e.js runs this file against both.
 */
import { expect, test, type Page } from '@playwright/test';
import { useDemoAccount, watchRefusals } from './demoAccount';

const PROFILE = process.env.GEXDECK_SERVICE_PAYLOADS === 'documented' ? 'documented' : 'observed';

interface LadderBar {
	strike: number;
	side: string;
	value: number;
	x: number;
	width: number;
	cls: string;
}

type MiniRow = [number, number, number, number, number[], number | null, number[] | null];

async function ladderBars(page: Page): Promise<LadderBar[]> {
	return page.locator('rect.ladder-bar').evaluateAll((rects) =>
		rects.map((r) => ({
			strike: Number(r.getAttribute('data-strike')),
			side: r.getAttribute('data-side') ?? '',
			value: Number(r.getAttribute('data-value')),
			x: Number(r.getAttribute('x')),
			width: Number(r.getAttribute('width')),
			cls: r.getAttribute('class') ?? ''
		}))
	);
}

/** Nothing on the page reads NaN, whichever payload shape the service sends. */
async function expectNoNaN(page: Page) {
	expect(await page.locator('body').innerText()).not.toMatch(/NaN/);
}

/**
 * The ladder is drawn with a bar per strike and side, and a bar is visible exactly when its
 * value is not zero (a zero value is a zero-width bar). How many strikes hold a non-zero value
 * depends on the hour: near the close a same-day expiry's vanna or charm rounds to zero a few
 * strikes from spot, so the count of visible bars is not a fixed number.
 */
async function expectLadder(page: Page) {
	await expect(page.getByTestId('ladder')).toBeVisible();
	await expect
		.poll(async () => {
			const bars = await ladderBars(page);
			const strikes = new Set(bars.map((b) => b.strike)).size;
			const visible = bars.filter((b) => b.width > 0).length;
			const consistent = bars.every((b) => (b.value !== 0) === b.width > 0);
			return strikes > 10 && visible > 0 && consistent;
		})
		.toBe(true);
}

async function ladderCentre(page: Page): Promise<number> {
	return Number(await page.getByTestId('ladder').getAttribute('data-centre'));
}

test('the delta ladder draws the profile as the API publishes it', async ({ page }) => {
	await page.goto('/SPX/state/delta_zero');
	await expectLadder(page);
	const centre = await ladderCentre(page);
	const body = (await (await page.request.get('/api/SPX/state/delta_zero')).json()) as {
		mini_contracts: MiniRow[];
	};
	if (PROFILE === 'observed') {
		// The live service's shape: one net value per strike, put fields null.
		expect(body.mini_contracts.every((r) => r[5] === null && r[6] === null)).toBe(true);
		await expect(page.getByTestId('ladder')).toHaveAttribute('data-form', 'net');
		const bars = await ladderBars(page);
		expect(bars.every((b) => b.side === 'net')).toBe(true);
		expect(bars.length).toBeGreaterThan(10);
		// Sign decides the side of the strike column; colour follows the sign.
		for (const b of bars.filter((x) => x.width > 0)) {
			if (b.value < 0) {
				expect(b.x + b.width).toBeLessThan(centre);
				expect(b.cls).toContain('neg');
			} else {
				expect(b.x).toBeGreaterThan(centre);
				expect(b.cls).toContain('pos');
			}
		}
		await expect(page.getByTestId('greek-totals')).toHaveText(/\d/);
		await expect(page.locator('.side-title.call')).toHaveText('positive ▶');
	} else {
		await expect(page.getByTestId('ladder')).toHaveAttribute('data-form', 'mirrored');
		const bars = await ladderBars(page);
		const calls = bars.filter((b) => b.side === 'call');
		const puts = bars.filter((b) => b.side === 'put');
		expect(calls.length).toBeGreaterThan(10);
		expect(puts.length).toBe(calls.length);
		// Geometry: every put bar ends left of the strike column, every call bar starts right of it.
		for (const b of puts) expect(b.x + b.width).toBeLessThan(centre);
		for (const b of calls) expect(b.x).toBeGreaterThan(centre);
		// Bar length follows the value on one scale for both sides: any value of at least 2% of
		// the largest is a visible bar. (How much each side holds is the market's: after a rally
		// the day's traded puts are far out of the money and their delta is near zero.)
		const largest = Math.max(...bars.map((b) => Math.abs(b.value)));
		for (const b of bars) {
			if (Math.abs(b.value) >= 0.02 * largest) {
				expect(b.width, `${b.side} ${b.strike}: ${b.value}`).toBeGreaterThan(3);
			}
		}
		expect(
			calls.filter((b) => b.width > 3).length + puts.filter((b) => b.width > 3).length
		).toBeGreaterThan(3);
		expect(puts.some((b) => b.width > 0)).toBe(true);

		// Known signs from the API: the put with the most negative delta is a red bar on the put
		// side, the call with the largest delta a green bar on the call side, at the same strikes.
		await expect
			.poll(async () => {
				const now = (await (await page.request.get('/api/SPX/state/delta_zero')).json()) as {
					mini_contracts: [number, number, number, number, number[], number, number[]][];
				};
				const drawn = await ladderBars(page);
				const inWindow = now.mini_contracts.filter((r) => drawn.some((b) => b.strike === r[0]));
				const put = inWindow.reduce((a, r) => (r[5] < a[5] ? r : a));
				const call = inWindow.reduce((a, r) => (r[3] > a[3] ? r : a));
				const putBar = drawn.find((b) => b.strike === put[0] && b.side === 'put')!;
				const callBar = drawn.find((b) => b.strike === call[0] && b.side === 'call')!;
				return [
					put[5] < 0,
					putBar.value < 0 && putBar.cls.includes('neg') && putBar.x + putBar.width < centre,
					call[3] > 0,
					callBar.value > 0 && callBar.cls.includes('pos') && callBar.x > centre
				];
			})
			.toEqual([true, true, true, true]);
	}

	// The smile, prior ghost marks and the spot line are drawn.
	expect(await page.locator('circle.iv-dot').count()).toBeGreaterThan(10);
	expect(await page.locator('line.prior').count()).toBeGreaterThan(10);
	await expect(page.locator('line[data-level~="spot"]')).toHaveCount(1);
	await expect(page.getByTestId('greek-majors')).toHaveText(/\d/);

	// Keyboard readout.
	await page.getByTestId('ladder').focus();
	await page.keyboard.press('ArrowUp');
	await expect(page.getByTestId('ladder-readout')).toContainText('from spot');
	await expect(page.getByTestId('ladder-readout')).toContainText(
		PROFILE === 'observed' ? 'net' : 'puts'
	);
	await expectNoNaN(page);
	await page.screenshot({ path: `test-results/state-delta-${PROFILE}.png`, fullPage: true });
});

test('the ladder keys move the cursor the way the rows run: ↓ lower strikes, ↑ higher', async ({
	page
}) => {
	await page.goto('/SPX/state/delta_zero');
	await expectLadder(page);
	const ladder = page.getByTestId('ladder');
	const strike = async () => Number(await ladder.getAttribute('aria-valuenow'));
	await ladder.focus();
	await expect(ladder).toHaveAttribute('aria-valuetext', 'no strike selected');
	// With nothing selected the value is the row at spot.
	const atSpot = await strike();
	await page.keyboard.press('ArrowDown');
	await expect(ladder).toHaveAttribute('aria-valuetext', /^strike /);
	const first = await strike();
	expect(first).toBeLessThan(atSpot);
	await page.keyboard.press('ArrowDown');
	await expect.poll(strike).toBeLessThan(first);
	await page.keyboard.press('ArrowUp');
	await expect.poll(strike).toBe(first);
	await page.keyboard.press('ArrowUp');
	await page.keyboard.press('ArrowUp');
	await expect.poll(strike).toBeGreaterThan(atSpot);
});

test('the State GEX view draws the histogram with the majors and max change', async ({ page }) => {
	await page.goto('/SPX/state/gex_full');
	await expect(page.locator('rect.bar').first()).toBeVisible();
	expect(await page.locator('rect.bar').count()).toBeGreaterThan(10);
	expect(await page.locator('rect.bar.pos').count()).toBeGreaterThan(0);
	expect(await page.locator('rect.bar.neg').count()).toBeGreaterThan(0);
	await expect(page.locator('line[data-level="spot"]')).toHaveCount(1);
	await expect(page.getByTestId('net-gex')).toHaveText(/\d/);
	await expect(page.locator('[data-testid="maxchange"] tbody tr')).toHaveCount(6);
	if (PROFILE === 'observed') {
		// The service sends State's OI side and zero gamma as 0: n/a, never a level at 0.
		await expect(page.getByTestId('majors-zero-gamma')).toHaveText('n/a for State');
		// The figure cards leave those fields out and say so once, in one muted note.
		await expect(page.getByTestId('state-unpublished')).toHaveText(
			'OI-based figures, zero gamma and Δ risk reversal are not published by the State API.'
		);
		await expect(page.getByTestId('figures')).not.toContainText('n/a');
		await expect(page.getByTestId('zero-gamma')).toHaveCount(0);
		await expect(page.getByTestId('risk-reversal')).toHaveCount(0);
		await expect(page.getByTestId('sums')).toHaveText(/\d/);
		await expect(page.getByTestId('sums')).not.toContainText('/');
		await expect(page.getByTestId('net-gex')).toContainText('n/a for State');
		await expect(page.locator('line[data-level="zero"]')).toHaveCount(0);
		await expect(page.locator('line[data-level="mpos"]')).toHaveCount(1);
		await page.screenshot({ path: `test-results/state-gex-${PROFILE}.png`, fullPage: true });
		// By OI there is nothing to draw: said so, no bars.
		await page.getByTestId('metric-oi').click();
		await expect(page).toHaveURL(/\/SPX\/state\/gex_full\?metric=oi$/);
		await expect(page.getByTestId('empty')).toContainText('n/a for State');
		await expect(page.locator('rect.bar')).toHaveCount(0);
		for (const level of ['mpos', 'mneg', 'zero']) {
			await expect(page.locator(`line[data-level="${level}"]`)).toHaveCount(0);
		}
	} else {
		await expect(page.getByTestId('majors')).toContainText(/Zero gamma\s*[\d,]+\.\d{2}/);
		// A service that fills them: every figure is shown, and no note.
		await expect(page.getByTestId('risk-reversal')).toHaveText(/^[+−]?\d\.\d{3}$/);
		await expect(page.getByTestId('zero-gamma')).toHaveText(/^[\d,]+\.\d{2}$/);
		await expect(page.getByTestId('sums')).toContainText(' / ');
		await expect(page.getByTestId('major-pos')).toContainText(' / ');
		await expect(page.getByTestId('state-unpublished')).toHaveCount(0);
		await page.screenshot({ path: `test-results/state-gex-${PROFILE}.png`, fullPage: true });
		// OI metric: the bars follow the OI column of the state chain.
		await page.getByTestId('metric-oi').click();
		await expect(page).toHaveURL(/\/SPX\/state\/gex_full\?metric=oi$/);
		await expect(page.getByTestId('histogram')).toHaveAttribute('aria-label', /by OI/);
	}
	await expectNoNaN(page);
});

test('the category picker works by keyboard and by touch', async ({ browser }) => {
	const context = await browser.newContext({
		hasTouch: true,
		viewport: { width: 390, height: 844 }
	});
	const page = await context.newPage();
	await page.goto('/SPX/state/gex_zero');
	await expect(page.locator('rect.bar').first()).toBeVisible();
	// At a phone's width the view's controls are a sheet the bottom bar's Controls opens.
	await page.getByTestId('controls-open').tap();
	// Keyboard: → on the measure radios picks Delta (same expiry set), → on expiries picks Next.
	await page.getByTestId('measure-gex').focus();
	await page.keyboard.press('ArrowRight');
	await expect(page).toHaveURL(/\/SPX\/state\/delta_zero$/);
	await expect(page.getByTestId('measure-delta')).toBeFocused();
	await page.getByTestId('expiry-zero').focus();
	await page.keyboard.press('ArrowRight');
	await expect(page).toHaveURL(/\/SPX\/state\/delta_one$/);
	// Full is GEX only: ← from 0DTE wraps to Next, skipping it.
	await page.keyboard.press('ArrowLeft');
	await expect(page).toHaveURL(/\/SPX\/state\/delta_zero$/);
	await page.keyboard.press('ArrowLeft');
	await expect(page).toHaveURL(/\/SPX\/state\/delta_one$/);
	await expect(page.getByTestId('expiry-full')).toBeDisabled();
	// Touch: tap Vanna.
	await page.getByTestId('measure-vanna').tap();
	await expect(page).toHaveURL(/\/SPX\/state\/vanna_one$/);
	await expectLadder(page);
	await expect(page.getByTestId('category-label')).toHaveText('vanna next expiry');
	// A phone shows the ladder without horizontal scrolling.
	expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
	await page.screenshot({ path: 'test-results/state-phone.png', fullPage: true });
	await context.close();
});

test('a share link round-trips the greek view state', async ({ page, browser }) => {
	// The theme follows the system until one is picked: a dark system makes the toggle pick light.
	await page.emulateMedia({ colorScheme: 'dark' });
	await page.goto('/NDX/state/gamma_one');
	await expectLadder(page);
	await page.getByTestId('zoom-in').click();
	await page.getByTestId('overlay-smile').click();
	await expect(page).toHaveURL(/zoom=\d.*&ov=levels,priors$/);
	await page.getByTestId('theme-toggle').click();
	await expect(page).toHaveURL(/theme=light/);
	expect(new URL(page.url()).searchParams.get('ov')).toBe('levels,priors');
	const shared = page.url();
	expect([...new URL(shared).searchParams.keys()].sort()).toEqual(['ov', 'theme', 'zoom']);
	const label = await page.getByTestId('ladder').getAttribute('aria-label');
	const strikes = (await ladderBars(page)).map((b) => b.strike);

	const other = await browser.newContext();
	const p2 = await other.newPage();
	await p2.goto(shared);
	await expectLadder(p2);
	await expect(p2).toHaveURL(shared);
	await expect(p2.locator('html')).toHaveAttribute('data-theme', 'light');
	await expect(p2.getByTestId('measure-gamma')).toHaveAttribute('aria-checked', 'true');
	await expect(p2.getByTestId('expiry-one')).toHaveAttribute('aria-checked', 'true');
	await expect(p2.getByTestId('overlay-smile')).toHaveAttribute('aria-pressed', 'false');
	await expect(p2.getByTestId('ladder')).toHaveAttribute('aria-label', label!);
	expect(await p2.getByTestId('smile').count()).toBe(0);
	expect((await ladderBars(p2)).map((b) => b.strike)).toEqual(strikes);
	await p2.screenshot({ path: 'test-results/state-shared-light.png', fullPage: true });
	await other.close();
});

test('a Quant account streams the greek group with the REST poller idle', async ({ page }) => {
	await page.goto('/SPX/state/charm_zero');
	await expect(page.getByTestId('feed-mode')).toHaveAttribute('data-mode', 'stream', {
		timeout: 30_000
	});
	const requests: string[] = [];
	page.on('request', (req) => {
		if (new URL(req.url()).pathname === '/api/SPX/state/charm_zero') requests.push(req.url());
	});
	const first = await page.getByTestId('timestamp').innerText();
	await expect(page.getByTestId('timestamp')).not.toHaveText(first, { timeout: 10_000 });
	await expectLadder(page);
	expect(requests).toEqual([]);
	await expectNoNaN(page);
});

test('a State account polls every second and a reload paints the cached profile', async ({
	page
}) => {
	try {
		await useDemoAccount(page, 'demo-state');
		const polls: string[] = [];
		page.on('request', (req) => {
			if (new URL(req.url()).pathname === '/api/SPX/state/vanna_zero') polls.push(req.url());
		});
		await page.goto('/SPX/state/vanna_zero');
		await expectLadder(page);
		await expect(page.getByTestId('feed-mode')).toHaveAttribute('data-mode', 'polling');
		await expect(page.getByTestId('feed-mode')).toContainText('Quant');
		const before = polls.length;
		await page.waitForTimeout(3_500);
		expect(polls.length - before).toBeGreaterThanOrEqual(2);

		await page.route('**/api/**', (route) => route.abort('internetdisconnected'));
		await page.reload();
		await expectLadder(page);
		await expect(page.getByTestId('stale')).toBeVisible();
	} finally {
		await page.unroute('**/api/**');
		await useDemoAccount(page, 'demo-research');
	}
});

test('a Classic-only key sees the State views locked with the reason, without asking', async ({
	page
}) => {
	try {
		await useDemoAccount(page, 'demo-classic');
		// The server knows the account's entitlements: the locked routes are not fetched (each
		// refused fetch would answer 403 and log a console error).
		const seen = watchRefusals(page);
		for (const path of ['/SPX/state/gamma_zero', '/SPX/state/gex_full']) {
			await page.goto(path);
			await expect(page.getByTestId('locked')).toContainText('State package');
			await expect(page.getByTestId('locked')).toContainText('Locked');
			expect(await page.locator('rect.ladder-bar, rect.bar').count()).toBe(0);
			await expect(page.getByTestId('loading')).toHaveCount(0);
			await page.waitForLoadState('networkidle');
		}
		await expect(page.getByTestId('majors-panel')).toHaveCount(0);
		// The lock comes first (issue 25 item 11): no toolbar is drawn above a page that cannot load.
		await expect(page.getByLabel('View controls')).toHaveCount(0);
		await page.waitForTimeout(1_500);
		expect(seen.forbidden).toEqual([]);
		expect(seen.consoleErrors).toEqual([]);
		await page.screenshot({ path: 'test-results/state-locked.png' });
	} finally {
		await useDemoAccount(page, 'demo-research');
	}
});
