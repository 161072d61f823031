import { expect, test } from '@playwright/test';

test('a reload paints the last snapshot from IndexedDB, marked stale, and stays readable offline', async ({
	page
}) => {
	await page.goto('/SPX/classic/gex_full');
	await expect(page.locator('rect.bar').first()).toBeVisible();
	// The snapshot reaches IndexedDB (whether the stream or the poller delivered it first).
	await expect
		.poll(() =>
			page.evaluate(
				() =>
					new Promise<boolean>((resolve) => {
						const open = indexedDB.open('gexdeck');
						open.onerror = () => resolve(false);
						open.onsuccess = () => {
							const db = open.result;
							if (!db.objectStoreNames.contains('snapshots')) return resolve(false);
							const get = db
								.transaction('snapshots')
								.objectStore('snapshots')
								.get('SPX/classic/gex_full');
							get.onsuccess = () => resolve(get.result !== undefined);
							get.onerror = () => resolve(false);
							db.close();
						};
					})
			)
		)
		.toBe(true);

	// The upstream becomes unreachable: the proxy answers nothing.
	await page.route('**/api/**', (route) => route.abort('internetdisconnected'));
	await page.reload();
	await expect(page.locator('rect.bar').first()).toBeVisible();
	await expect(page.getByTestId('stale')).toBeVisible();
	await expect(page.getByTestId('error')).toContainText('Network error');
	await page.screenshot({ path: 'test-results/offline-cached.png' });
});

test('storage failures turn the cache off with a notice, never a broken page', async ({ page }) => {
	await page.addInitScript(() => {
		// What some private modes do: IndexedDB exists but refuses to open.
		indexedDB.open = () => {
			throw new DOMException('The user denied permission to access the database.', 'SecurityError');
		};
	});
	await page.goto('/SPX/classic/gex_full');
	await expect(page.locator('rect.bar').first()).toBeVisible();
	await expect(page.locator('.cache-notice')).toContainText('offline cache turned off');
});

test('a full browser storage (quota exceeded) turns the cache off and the page keeps working', async ({
	page
}) => {
	await page.addInitScript(() => {
		const quota = () => {
			throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
		};
		IDBObjectStore.prototype.put = quota;
		IDBObjectStore.prototype.add = quota;
	});
	await page.goto('/SPX/classic/gex_full');
	await expect(page.locator('rect.bar').first()).toBeVisible();
	await expect(page.locator('.cache-notice')).toContainText('Browser storage is full');
});

test('an upgrade blocked by another connection turns the cache off instead of stalling', async ({
	page
}) => {
	await page.addInitScript(() => {
		// An old tab's connection at version 1 that never closes on versionchange.
		const old = indexedDB.open('gexdeck', 1);
		old.onsuccess = () => {
			(window as unknown as { heldDb: IDBDatabase }).heldDb = old.result;
		};
	});
	await page.goto('/SPX/classic/gex_full');
	await expect(page.locator('rect.bar').first()).toBeVisible();
	await expect(page.locator('.cache-notice')).toContainText('Browser storage is blocked');
	await page.screenshot({ path: 'test-results/cache-blocked.png' });
});
