import { expect, type Page } from '@playwright/test';

/**
 * Switches the dashboard's embedded demo account on the Account page (server-wide state: the
 * specs that call it switch back to `demo-research`, the default, when they finish).
 */
export async function useDemoAccount(page: Page, id: string): Promise<void> {
	await page.goto('/account');
	await page.waitForLoadState('networkidle');
	await page.getByTestId('demo-account').selectOption(id);
	await page.getByTestId('switch-account').click();
	await expect(page.getByTestId('whoami')).toContainText(id);
}

/**
 * Collects what a page that knows its account's entitlements should never produce: console
 * errors (a refused fetch logs one) and 403 answers. Read the arrays after the page settled.
 */
export function watchRefusals(page: Page): { consoleErrors: string[]; forbidden: string[] } {
	const seen = { consoleErrors: [] as string[], forbidden: [] as string[] };
	page.on('console', (m) => {
		if (m.type() === 'error') seen.consoleErrors.push(m.text());
	});
	page.on('response', (r) => {
		if (r.status() === 403) seen.forbidden.push(r.url());
	});
	return seen;
}
