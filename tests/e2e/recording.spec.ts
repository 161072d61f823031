import { expect, test, type Page } from '@playwright/test';

/**
 * "Record even when no tab is open" follows the watchlist the user last opened until a list is
 * saved on the Account page, which says which list is in effect and why. Every list here keeps
 * SPX: other specs rely on the server recording SPX from its start.
 */

async function openWatchlist(page: Page, tickers: string) {
	const reported = page.waitForResponse(
		(r) => r.url().endsWith('/recording/watchlist') && r.request().method() === 'POST'
	);
	await page.goto(`/watchlist?t=${tickers}`);
	expect((await reported).status()).toBe(200);
}

async function alwaysRecord(page: Page) {
	await page.goto('/account');
	const panel = page.getByTestId('recording');
	await expect(panel).toBeVisible();
	return panel;
}

/** Streams the server has recorded for `ticker` on any day. */
async function recordedStreams(page: Page, ticker: string): Promise<string[]> {
	const res = await page.request.get(`/history/${ticker}`);
	if (!res.ok()) return [];
	const body = (await res.json()) as { days: { streams: string[] }[] };
	return body.days.flatMap((d) => d.streams);
}

/**
 * Waits until the embedded service serves `ticker` (its gex_full snapshot answers 200). After a
 * start the service catches every chain up from the session's open to its clock, the headline
 * ones first; the rest take longer the later in the session (or in the replayed session, outside
 * market hours) the clock stands, a minute or more late on a full day. Until then there is
 * nothing to record. gex_full only: fetching it records that stream, not the one tested.
 */
async function serviceServes(page: Page, ticker: string) {
	await expect
		.poll(async () => (await page.request.get(`/api/${ticker}/classic/gex_full`)).status(), {
			timeout: 240_000,
			intervals: [5_000]
		})
		.toBe(200);
}

test('the always-record list follows the last watchlist until one is saved', async ({ page }) => {
	test.setTimeout(330_000);
	// TLT's 0DTE GEX: no view of this run watches it, and the watchlist page streams gex_full only.
	expect(await recordedStreams(page, 'TLT')).not.toContain('classic_gex_zero');
	await serviceServes(page, 'TLT');
	await openWatchlist(page, 'SPX,TLT');
	await page.goto('/account');
	// With no tab on it, the server records what the always-record list holds.
	await expect
		.poll(() => recordedStreams(page, 'TLT'), { timeout: 30_000 })
		.toContain('classic_gex_zero');

	await openWatchlist(page, 'SPX,IWM');
	let panel = await alwaysRecord(page);
	await expect(page.getByTestId('always-record')).toContainText('SPX, IWM');
	await expect(page.getByTestId('always-record-source')).toContainText('your last watchlist');
	await expect(panel.getByLabel(/Follow my last watchlist/)).toBeChecked();

	// Typing a list unticks "follow"; saving it makes it the list in effect.
	await panel.getByLabel('Record even when no tab is open').fill('SPX, QQQ');
	await expect(panel.getByLabel(/Follow my last watchlist/)).not.toBeChecked();
	await panel.getByRole('button', { name: 'Save recording settings' }).click();
	await expect(page.getByTestId('form-message')).toContainText('Recording settings saved');
	await expect(page.getByTestId('always-record')).toContainText('SPX, QQQ');
	await expect(page.getByTestId('always-record-source')).toContainText('the list saved below');

	// Another watchlist does not override the saved list.
	await openWatchlist(page, 'SPX,TSLA');
	panel = await alwaysRecord(page);
	await expect(page.getByTestId('always-record')).toContainText('SPX, QQQ');

	// Following the watchlist again brings the last one opened back.
	await panel.getByLabel(/Follow my last watchlist/).check();
	await panel.getByRole('button', { name: 'Save recording settings' }).click();
	await expect(page.getByTestId('form-message')).toContainText('Recording settings saved');
	await expect(page.getByTestId('always-record')).toContainText('SPX, TSLA');
	await expect(page.getByTestId('always-record-source')).toContainText('your last watchlist');
	await panel.screenshot({ path: 'test-results/account-always-record.png' });
});

test('the watchlist report needs the CSRF token and known tickers', async ({ page }) => {
	await page.goto('/account');
	const post = (headers: Record<string, string>, body: unknown) =>
		page.evaluate(
			async ([h, b]) => {
				const res = await fetch('/recording/watchlist', {
					method: 'POST',
					headers: { 'content-type': 'application/json', ...h },
					body: JSON.stringify(b)
				});
				return { status: res.status, body: await res.text() };
			},
			[headers, body] as const
		);
	const noToken = await post({}, { tickers: ['SPX'] });
	expect(noToken.status).toBe(403);
	expect(noToken.body).toMatch(/CSRF/);
	const csrf = await page.locator('input[name=csrf]').first().inputValue();
	const unknown = await post({ 'x-csrf-token': csrf }, { tickers: ['SPX', 'NOPE'] });
	expect(unknown.status).toBe(400);
	expect(unknown.body).toContain('Unknown tickers: NOPE');
	const notAList = await post({ 'x-csrf-token': csrf }, { tickers: 'SPX' });
	expect(notAList.status).toBe(400);
});
