import { expect, test } from '@playwright/test';
import { useDemoAccount } from './demoAccount';

/**
 * Issue 25 item 11: a Classic-only account sees the views its tier lacks marked as locked in
 * the menu before the click, and a locked page shows the lock first, with no toolbar above it.
 */
for (const [name, viewport] of [
	['desktop', { width: 1280, height: 900 }],
	['phone', { width: 390, height: 844 }]
] as const) {
	test(`${name}: locked views are marked in the menu and open on the lock`, async ({ page }) => {
		await page.setViewportSize(viewport);
		try {
			await useDemoAccount(page, 'demo-classic');
			await page.goto('/SPX/classic/gex_full');
			// On a phone the menu is the bottom bar's More sheet (every item, locks included).
			if (name === 'phone') await page.getByTestId('menu-more').click();
			const menu = page.getByRole('navigation', { name: name === 'phone' ? 'All views' : 'Main' });
			for (const view of ['State', 'Orderflow', 'Research']) {
				const link = menu.getByRole('link', { name: new RegExp(`^${view}`) });
				await expect(link, view).toHaveAttribute('data-locked', 'true');
				await expect(link, view).toHaveAttribute('title', /Requires|Research key|package/);
				await expect(link, view).toContainText('(locked)');
				await expect(link.getByTestId('lock-mark'), view).toBeVisible();
			}
			const classic = menu.getByRole('link', { name: /^Classic/ });
			await expect(classic).not.toHaveAttribute('data-locked', 'true');

			// State opens on its lock: no view controls drawn over an empty page.
			await page.goto('/SPX/state/gex_full');
			await expect(page.getByTestId('locked')).toBeVisible();
			await expect(page.getByLabel('View controls')).toHaveCount(0);
			await page.screenshot({ path: `test-results/locked-state-${name}.png`, fullPage: true });
		} finally {
			await useDemoAccount(page, 'demo-research');
		}
	});
}
