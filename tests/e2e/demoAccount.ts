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
