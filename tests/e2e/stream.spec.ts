import { expect, test, type Page } from '@playwright/test';

/** The diagnostics handle the pages install (src/lib/live/sharedStream.ts). */
interface StreamHandle {
	inject(frame: ArrayBuffer): void;
	stats: { corrupt: number; unknown: number } | undefined;
}

/** Distinct values a test id's text takes over `ms` (sampled every 100 ms), first excluded. */
async function changesOf(page: Page, testId: string, ms: number): Promise<string[]> {
	const seen: string[] = [];
	let last = await page.getByTestId(testId).first().innerText();
	const end = Date.now() + ms;
	while (Date.now() < end) {
		await page.waitForTimeout(100);
		const now = await page.getByTestId(testId).first().innerText();
		if (now !== last) seen.push(now);
		last = now;
	}
	return seen;
}

async function openStreaming(page: Page, path = '/SPX/classic/gex_full') {
	await page.goto(path);
	// The first streamed update switches the page from REST to the stream.
	await expect(page.getByTestId('feed-mode')).toHaveAttribute('data-mode', 'stream', {
		timeout: 30_000
	});
	await expect(page.getByTestId('feed-mode')).toContainText('Streaming');
}

test('the Classic view draws streamed updates with the REST poller idle', async ({ page }) => {
	await openStreaming(page);
	const classicRequests: string[] = [];
	page.on('request', (req) => {
		if (new URL(req.url()).pathname.startsWith('/api/SPX/classic/'))
			classicRequests.push(req.url());
	});
	const changes = await changesOf(page, 'timestamp', 8_000);
	expect(changes.length).toBeGreaterThanOrEqual(3);
	expect(classicRequests).toEqual([]);
	await expect(page.locator('rect.bar').first()).toBeVisible();
	await page.screenshot({ path: 'test-results/classic-streaming.png' });
});

test('two tabs of the same dashboard both keep streaming', async ({ context }) => {
	const a = await context.newPage();
	const b = await context.newPage();
	await openStreaming(a);
	await openStreaming(b);
	const [ca, cb] = await Promise.all([
		changesOf(a, 'timestamp', 6_000),
		changesOf(b, 'timestamp', 6_000)
	]);
	expect(ca.length).toBeGreaterThanOrEqual(3);
	expect(cb.length).toBeGreaterThanOrEqual(3);
	// The second tab did not kick the first off the slot.
	await expect(a.getByTestId('feed-mode')).toHaveAttribute('data-mode', 'stream');
	await a.close();
	await b.close();
});

/** The ring-writer Web Locks of the origin, as a page sees them (src/lib/stream/ring/ringWriterLock.ts). */
async function ringLocks(page: Page, group: string) {
	return page.evaluate(async (name) => {
		const q = await navigator.locks.query();
		const count = (xs: LockInfo[] | undefined) => (xs ?? []).filter((l) => l.name === name).length;
		return { held: count(q.held), pending: count(q.pending) };
	}, `gexdeck-ring-writer:${group}`);
}

test("two tabs on one group: one tab's worker writes the ring, the other takes over when it closes", async ({
	context
}) => {
	const a = await context.newPage();
	const b = await context.newPage();
	await openStreaming(a);
	await openStreaming(b);
	// One writer, the other tab queued behind it (each tab wrote every frame before).
	await expect
		.poll(() => ringLocks(b, 'SPX_classic_gex_full'), { timeout: 30_000 })
		.toEqual({ held: 1, pending: 1 });
	await a.close();
	await expect
		.poll(() => ringLocks(b, 'SPX_classic_gex_full'), { timeout: 30_000 })
		.toEqual({ held: 1, pending: 0 });
	// The tab left goes on streaming.
	expect((await changesOf(b, 'timestamp', 4_000)).length).toBeGreaterThanOrEqual(2);
	await b.close();
});

test('corrupt frames are counted and skipped; updates go on', async ({ page }) => {
	await openStreaming(page);
	await page.evaluate(() => {
		const s = (globalThis as unknown as { gexdeckStream: StreamHandle }).gexdeckStream;
		// Garbage, a truncated header and random bytes through the worker's decode path.
		s.inject(new Uint8Array([0xff, 0x00, 0x13, 0x37]).buffer);
		s.inject(new Uint8Array([1]).buffer);
		s.inject(crypto.getRandomValues(new Uint8Array(512)).buffer);
	});
	await expect
		.poll(() =>
			page.evaluate(() => {
				const st = (globalThis as unknown as { gexdeckStream: StreamHandle }).gexdeckStream.stats;
				return (st?.corrupt ?? 0) + (st?.unknown ?? 0);
			})
		)
		.toBeGreaterThanOrEqual(3);
	const changes = await changesOf(page, 'timestamp', 5_000);
	expect(changes.length).toBeGreaterThanOrEqual(3);
	await expect(page.getByTestId('feed-mode')).toHaveAttribute('data-mode', 'stream');
});

test('the watchlist streams several tickers and shows memberships per hub', async ({ page }) => {
	await openStreaming(page, '/watchlist?t=SPX,NDX,QQQ,SPY');
	await expect(page.locator('[data-testid="watchlist"] tbody tr')).toHaveCount(4);
	for (const t of ['SPX', 'NDX', 'QQQ', 'SPY']) {
		await expect(page.locator(`tr[data-ticker="${t}"] [data-testid="row-spot"]`)).toHaveText(
			/^\d{1,3}(,\d{3})*\.\d{2}$/
		);
	}
	await expect(page.getByTestId('usage')).toContainText(/\d+ of 150 memberships in use/);
	const changes = await changesOf(page, 'row-time', 5_000);
	expect(changes.length).toBeGreaterThanOrEqual(2);
	await page.screenshot({ path: 'test-results/watchlist-streaming.png', fullPage: true });
});
