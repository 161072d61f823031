import { expect, test } from '@playwright/test';
import { parsePaste } from '../../src/lib/levels/pasteString';

/**
 * Integration tokens and the /integrations page in Chromium: a token created on the Account page
 * is shown once and opens the feed; /integrations lists every platform's URL with a placeholder
 * (never the token), the held levels' freshness and the token's last use; "Copy for TradingView"
 * on the Classic view copies a string of the documented grammar; a revoke answers 401 at once.
 */
test('tokens, the integrations page and Copy for TradingView', async ({ page, context }) => {
	await context.grantPermissions(['clipboard-read', 'clipboard-write']);
	await page.goto('/account');
	await page.getByLabel('Name').fill('e2e desk');
	await page.getByRole('button', { name: 'Create token' }).click();
	const created = page.getByTestId('created-token').locator('code');
	await expect(created).toHaveText(/^gxd_[A-Za-z0-9_-]{43}$/);
	const token = await created.innerText();
	await expect(page.getByTestId('token-row')).toContainText(['e2e desk']);

	// The token opens the feed (503 until the first value of a newly held ticker, then 200).
	await expect
		.poll(
			async () =>
				(
					await page.request.get('/feed/v1/levels/SPX', {
						headers: { authorization: `Bearer ${token}` }
					})
				).status(),
			{ timeout: 60_000, intervals: [1000] }
		)
		.toBe(200);

	await page.goto('/integrations?ticker=SPX');
	await expect(page.getByTestId('platform')).toHaveCount(5);
	// The URL a platform is given opens: this dashboard's own scheme and host (plain http here;
	// adapter-node's url.origin would have said https).
	await expect(page.getByTestId('platforms')).toContainText(
		`${new URL(page.url()).origin}/feed/v1/levels/SPX.csv?token=<TOKEN>&future=ES`
	);
	expect(await page.content()).not.toContain(token.slice(4));
	await expect(page.getByTestId('held-row').filter({ hasText: 'SPX' }).first()).toContainText(
		/\d+ s ago/
	);
	await expect(page.getByTestId('token-uses')).toContainText('e2e desk');
	await expect(page.getByTestId('token-uses')).not.toContainText('never');
	const tv = await page.getByTestId('tradingview-string').innerText();
	expect(parsePaste(tv)).toMatchObject({ ok: true, value: { symbol: 'SPX' } });
	await page.getByTestId('copy-sierrachart').click();
	expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('token=<TOKEN>');

	await page.goto('/SPX/classic/gex_full');
	const copy = page.getByTestId('copy-tradingview');
	await expect(copy).toBeEnabled({ timeout: 30_000 });
	await copy.click();
	await expect(copy).toHaveText('Copied ✓');
	const copied = await page.evaluate(() => navigator.clipboard.readText());
	expect(parsePaste(copied)).toMatchObject({ ok: true, value: { symbol: 'SPX' } });

	await page.goto('/account');
	await page.getByRole('button', { name: 'Revoke e2e desk' }).click();
	await expect(page.getByTestId('form-message')).toContainText('revoked');
	const after = await page.request.get('/feed/v1/levels/SPX', {
		headers: { authorization: `Bearer ${token}` }
	});
	expect(after.status()).toBe(401);
});

test('the Account page makes a token for AI assistants (/mcp) and refuses one that opens nothing', async ({
	page
}) => {
	await page.goto('/account');
	await page.getByLabel('Name').fill('e2e assistant');
	await page.getByTestId('scope-feed').uncheck();
	await page.getByRole('button', { name: 'Create token' }).click();
	await expect(page.getByTestId('form-message')).toContainText('Tick what the token opens');
	await page.getByTestId('scope-mcp').check();
	await page.getByRole('button', { name: 'Create token' }).click();
	const token = await page.getByTestId('created-token').locator('code').innerText();
	const row = page.getByTestId('token-row').filter({ hasText: 'e2e assistant' });
	await expect(row.getByTestId('token-scopes')).toHaveText('mcp');
	const initialize = {
		jsonrpc: '2.0',
		id: 1,
		method: 'initialize',
		params: {
			protocolVersion: '2025-06-18',
			capabilities: {},
			clientInfo: { name: 'e2e', version: '1' }
		}
	};
	const headers = {
		authorization: `Bearer ${token}`,
		accept: 'application/json, text/event-stream',
		'content-type': 'application/json'
	};
	// The MCP endpoint takes it; the levels feed does not (the scope is what was ticked).
	expect((await page.request.post('/mcp', { headers, data: initialize })).status()).toBe(200);
	const feed = await page.request.get('/feed/v1/levels/SPX', { headers });
	expect(feed.status()).toBe(401);
	await page.getByRole('button', { name: 'Revoke e2e assistant' }).click();
	await expect(page.getByTestId('form-message')).toContainText('revoked');
});
