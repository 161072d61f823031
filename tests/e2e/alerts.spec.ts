import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Page } from '@playwright/test';

/**
 * The rules page in Chromium, on a phone and a desktop: a bad rule is refused with its reason,
 * a rule created on the page fires on the server from the streamed data and arrives in the tab
 * as a toast linking to the view, lands in the firing log, and is deleted again. A webhook that
 * fails shows failing; the export downloads the rules as JSON, and an import with a bad rule is
 * refused naming it.
 */

async function createRule(page: Page, name: string) {
	await page.goto('/alerts');
	await page.waitForLoadState('networkidle');
	// A level that moves with nearly every calculation: zero gamma moving at all.
	await page.getByTestId('rule-kind').selectOption('level_move');
	await page.getByTestId('rule-level').selectOption('zero_gamma');
	await page.locator('input[name="points"]').fill('0');
	await page.locator('input[name="cooldownSeconds"]').fill('600');
	await page.getByTestId('rule-name').fill(name);
	await page.getByTestId('rule-save').click();
	await expect(page.getByTestId('alerts-message')).toContainText(`Saved: ${name}`);
	await expect(page.locator('[data-testid="rule"]', { hasText: name })).toBeVisible();
}

async function deleteRule(page: Page, name: string) {
	const row = page.locator('[data-testid="rule"]', { hasText: name });
	await row.getByRole('button', { name: 'Delete' }).click();
	await expect(row).toHaveCount(0);
}

for (const device of [
	{ name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
	{ name: 'desktop', viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false }
]) {
	test.describe(device.name, () => {
		test.use({
			viewport: device.viewport,
			isMobile: device.isMobile,
			hasTouch: device.hasTouch
		});

		test('a bad rule is refused with the reason, and what was typed stays', async ({ page }) => {
			await page.goto('/alerts');
			await page.waitForLoadState('networkidle');
			await page.getByTestId('rule-level').selectOption('price');
			await page.getByTestId('rule-price').fill('abc');
			await page.getByTestId('rule-save').click();
			await expect(page.getByTestId('rule-error')).toHaveText('price must be a number, got "abc"');
			await expect(page.getByTestId('rule-price')).toHaveValue('abc');
			await expect(page.getByTestId('rules')).toHaveCount(0);
			// The time window opens with its switch, its own switch toggles, and it closes again.
			const only = page.getByRole('checkbox', { name: 'Only between' });
			await only.check();
			await expect(page.getByLabel('From (ET)')).toBeVisible();
			const marketDays = page.getByRole('checkbox', { name: 'market days only' });
			await marketDays.setChecked(true);
			await expect(marketDays).toBeChecked();
			await only.uncheck();
			await expect(page.getByLabel('From (ET)')).toHaveCount(0);

			// Refused again, each window field comes back as it was typed: a closed window keeps
			// its hours and its ticked "market days only", an open one its unticked box.
			await only.check();
			await page.getByLabel('From (ET)').fill('10:15');
			await expect(marketDays).toBeChecked();
			await only.uncheck();
			await page.getByTestId('rule-save').click();
			await expect(page.getByTestId('rule-error')).toHaveText('price must be a number, got "abc"');
			await expect(only).not.toBeChecked();
			await only.check();
			await expect(page.getByLabel('From (ET)')).toHaveValue('10:15');
			await expect(marketDays).toBeChecked();
			await marketDays.uncheck();
			await page.getByTestId('rule-save').click();
			await expect(page.getByTestId('rule-error')).toHaveText('price must be a number, got "abc"');
			await expect(only).toBeChecked();
			await expect(marketDays).not.toBeChecked();
			await expect(page.getByLabel('From (ET)')).toHaveValue('10:15');
			await expect(page.getByTestId('rule-price')).toHaveValue('abc');
			await expect(page.getByTestId('rules')).toHaveCount(0);
		});

		test('a rule created on the page fires as a toast with a link to the view', async ({
			page
		}) => {
			const name = `e2e ${device.name} zero gamma`;
			await createRule(page, name);
			const toast = page.getByTestId('alert-toast').filter({ hasText: name });
			await expect(toast).toBeVisible({ timeout: 30_000 });
			await expect(toast).toContainText('zero gamma moved');
			const link = toast.getByRole('link', { name: 'Open the view' });
			await expect(link).toHaveAttribute('href', /^\/SPX\/classic\/gex_full\?at=\d+$/);
			const widths = await page.evaluate(() => ({
				scroll: document.documentElement.scrollWidth,
				client: document.documentElement.clientWidth
			}));
			expect(widths.scroll).toBeLessThanOrEqual(widths.client);
			await page.screenshot({ path: `test-results/alerts-${device.name}.png`, fullPage: false });

			// The link opens the view (at that moment when this browser recorded it).
			await link.click();
			await expect(page).toHaveURL(/\/SPX\/classic\/gex_full\?at=\d+$/);
			await expect(page.getByTestId('histogram')).toBeVisible();

			// The firing is in the log with its values; the rule shows when it last fired.
			await page.goto('/alerts');
			await expect(page.getByTestId('firings')).toContainText(name);
			await expect(page.getByTestId('firings')).toContainText(/level \d+/);
			await expect(page.locator('[data-testid="rule"]', { hasText: name })).toContainText(
				'last fired'
			);
			await page.screenshot({
				path: `test-results/alerts-page-${device.name}.png`,
				fullPage: true
			});
			// Pause and resume post the rule's id and the new state.
			const row = page.locator('[data-testid="rule"]', { hasText: name });
			await row.getByRole('button', { name: 'Pause' }).click();
			await expect(row.getByRole('button', { name: 'Resume' })).toBeVisible();
			await row.getByRole('button', { name: 'Resume' }).click();
			await expect(row.getByRole('button', { name: 'Pause' })).toBeVisible();
			await deleteRule(page, name);
		});
	});
}

test.describe('notifications', () => {
	test('a tab in the background gets a browser notification when allowed', async ({ page }) => {
		// Chromium headless shows no notifications: record them instead, as a hidden tab.
		await page.addInitScript(() => {
			const shown: { title: string; body?: string }[] = [];
			(window as unknown as { shownNotifications: typeof shown }).shownNotifications = shown;
			class RecordedNotification {
				static permission = 'granted';
				static requestPermission = async () => 'granted';
				onclick: (() => void) | null = null;
				constructor(title: string, options?: { body?: string }) {
					shown.push({ title, body: options?.body });
				}
			}
			Object.defineProperty(window, 'Notification', { value: RecordedNotification });
			Object.defineProperty(document, 'visibilityState', { get: () => 'hidden' });
		});
		await page.goto('/alerts');
		await page.waitForLoadState('networkidle');
		await page.getByTestId('rule-level').selectOption('price');
		await page.getByTestId('rule-price').fill('1');
		await page.getByTestId('rule-name').fill('e2e notify');
		await page.getByTestId('rule-save').click();
		const row = page.locator('[data-testid="rule"]', { hasText: 'e2e notify' });
		await row.getByRole('button', { name: 'Test' }).click();
		await expect(page.getByTestId('alert-toast').filter({ hasText: 'e2e notify' })).toBeVisible();
		await expect
			.poll(() =>
				page.evaluate(
					() => (window as unknown as { shownNotifications: unknown[] }).shownNotifications
				)
			)
			.toEqual([{ title: 'e2e notify', body: 'Test: SPX spot crosses 1 (Full)' }]);
		await expect(page.getByText('allowed')).toBeVisible();
		await deleteRule(page, 'e2e notify');
	});
});

test.describe('webhooks, export and import', () => {
	test('a failing webhook shows failing; an import with a bad rule is refused naming it', async ({
		page
	}) => {
		const bodies: string[] = [];
		const receiver = createServer((req, res) => {
			let body = '';
			req.on('data', (c: Buffer) => (body += c.toString()));
			req.on('end', () => {
				bodies.push(body);
				res.writeHead(500).end();
			});
		});
		await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
		const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
		try {
			await page.goto('/alerts');
			await page.waitForLoadState('networkidle');
			await page.getByTestId('webhook-url').fill('ftp://example.com/x');
			await page.getByRole('button', { name: 'Add webhook' }).click();
			await expect(page.getByTestId('webhook-error')).toHaveText('url must be http(s), got ftp');
			await page.getByTestId('webhook-url').fill(url);
			await page.getByRole('button', { name: 'Add webhook' }).click();
			const hook = page.getByTestId('webhook').filter({ hasText: url });
			await hook.getByRole('button', { name: 'Test' }).click();
			await expect(hook.getByTestId('webhook-failing')).toContainText('HTTP 500');
			// The message links back with the scheme the dashboard really serves (plain http here).
			const link = (JSON.parse(bodies[0]) as { link: string }).link;
			expect(link.startsWith(`${new URL(page.url()).origin}/`), link).toBe(true);

			// The export downloads the rules and webhooks as JSON; an import of it with one rule
			// whose price is not a number is refused whole, naming that rule, and changes nothing.
			const [download] = await Promise.all([
				page.waitForEvent('download'),
				page.getByTestId('export-alerts').click()
			]);
			const exported = JSON.parse(readFileSync((await download.path())!, 'utf8')) as {
				rules: unknown[];
				webhooks: { url: string }[];
			};
			expect(exported.webhooks.map((w) => w.url)).toContain(url);
			const bad = { id: 'by-hand', ticker: 'SPX', kind: 'cross', level: 'price', price: 'abc' };
			const rulesBefore = await page.getByTestId('rule').count();
			await page.locator('input[name="file"]').setInputFiles({
				name: 'alerts.json',
				mimeType: 'application/json',
				buffer: Buffer.from(JSON.stringify({ ...exported, rules: [...exported.rules, bad] }))
			});
			await page.getByRole('button', { name: 'Import', exact: true }).click();
			await expect(page.getByTestId('import-errors')).toContainText(
				`rule by-hand (#${exported.rules.length + 1}): price must be a number, got "abc"`
			);
			await page.screenshot({ path: 'test-results/alerts-errors.png', fullPage: true });
			await page.reload();
			await expect(page.getByTestId('rule')).toHaveCount(rulesBefore);

			await hook.getByRole('button', { name: 'Delete' }).click();
			await expect(hook).toHaveCount(0);
		} finally {
			await new Promise((r) => receiver.close(r));
		}
	});
});
