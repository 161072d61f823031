import type { Page } from '@playwright/test';

/**
 * Hold every script of the app until the returned function is called: the server's page is on
 * screen and the app has not started (a slow phone's first second, made certain).
 */
export async function holdScripts(page: Page): Promise<() => void> {
	let release!: () => void;
	const held = new Promise<void>((r) => (release = r));
	await page.route('**/_app/immutable/**', async (route) => {
		await held;
		await route.continue();
	});
	return release;
}
