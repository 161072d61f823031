import { expect, test } from '@playwright/test';

test('a reload offline paints the last snapshot from IndexedDB (stream and proxy blocked), marked stale', async ({
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

	// Leave the view for a same-origin document that writes nothing, and mark the cached
	// snapshot with a spot that only IndexedDB holds.
	await page.goto('/favicon.svg');
	const marked = await page.evaluate(
		() =>
			new Promise<number>((resolve, reject) => {
				const open = indexedDB.open('gexdeck');
				open.onerror = () => reject(open.error);
				open.onsuccess = () => {
					const db = open.result;
					const store = db.transaction('snapshots', 'readwrite').objectStore('snapshots');
					const get = store.get('SPX/classic/gex_full');
					get.onsuccess = () => {
						const record = get.result as { data: { spot: number } };
						const spot = Math.floor(record.data.spot) + 0.42;
						record.data.spot = spot;
						store.put(record).onsuccess = () => {
							db.close();
							resolve(spot);
						};
					};
				};
			})
	);

	// Offline: the proxy answers nothing, and the live stream never starts (its socket lives in
	// a worker, which Playwright cannot route: the worker's script does not load).
	let streamBlocked = 0;
	await page.route(/\/workers\/worker-[^/]*\.js/, (route) => {
		streamBlocked++;
		return route.abort('internetdisconnected');
	});
	await page.route('**/api/**', (route) => route.abort('internetdisconnected'));
	await page.goto('/SPX/classic/gex_full');
	await expect(page.locator('rect.bar').first()).toBeVisible();
	// What is painted is the IndexedDB copy (the marked spot), marked stale.
	const shown = marked.toLocaleString('en-US', {
		minimumFractionDigits: 2,
		maximumFractionDigits: 2
	});
	await expect(page.getByTestId('spot')).toHaveText(shown);
	await expect(page.getByTestId('stale')).toBeVisible();
	expect(streamBlocked).toBeGreaterThan(0);
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
