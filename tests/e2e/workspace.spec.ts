import { readFileSync } from 'node:fs';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { strFromU8, unzipSync } from 'fflate';

/**
 * The workspace (issue 28): panels of every view linked by colour groups, the whole workspace in
 * its URL, named layouts in IndexedDB, rearranging and resizing by mouse and keyboard, a group
 * replay moving every panel (Classic, heatmap, Orderflow, levels path), and the phone's one
 * column.
 */

const panels = (page: Page) => page.getByTestId('ws-panel');

async function tickers(page: Page): Promise<string[]> {
	return panels(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-ticker') ?? ''));
}

async function chartsDrawn(page: Page, n: number) {
	await expect(panels(page)).toHaveCount(n);
	for (let i = 0; i < n; i++) {
		await expect(panels(page).nth(i).locator('rect.bar').first()).toBeVisible({
			timeout: 30_000
		});
	}
}

/** What each kind of panel shows once it has its data (the same marks its page's tests read). */
const DRAWN: Record<string, string> = {
	classic: 'rect.bar',
	state: 'rect.bar',
	heatmap: '[data-testid="heatmap"]',
	price: '[data-testid="price-chart"]',
	orderflow: '[data-testid="timeline"]',
	levels: '[data-testid="levels"]',
	research: '[data-testid="data-meta"]',
	watchlist: '[data-testid="row-spot"]'
};

async function viewsDrawn(page: Page, n: number) {
	await expect(panels(page)).toHaveCount(n);
	for (let i = 0; i < n; i++) {
		const p = panels(page).nth(i);
		const view = (await p.getAttribute('data-view')) ?? '';
		await expect(p.locator(DRAWN[view]).first(), `${view} panel ${i}`).toBeVisible({
			timeout: 60_000
		});
	}
}

/**
 * The data time a panel shows; a Classic panel's once its chart is of the replayed moment (a
 * moment of the day's overview is one record read when scrubbed to).
 */
async function shown(panel: Locator): Promise<number> {
	const replay = panel.getByTestId('replay');
	if ((await replay.count()) > 0) {
		await expect
			.poll(async () => {
				const at = await replay.getAttribute('data-at');
				return (
					at === '' || at === (await panel.locator('.charts').first().getAttribute('data-moment'))
				);
			})
			.toBe(true);
	}
	return Number(await panel.getByTestId('timestamp').getAttribute('data-unix'));
}

test('a bare /workspace opens the index trio; the URL round trips and a ticker change moves its group', async ({
	page
}) => {
	await page.goto('/workspace');
	await chartsDrawn(page, 3);
	expect(await tickers(page)).toEqual(['SPX', 'NDX', 'SPY']);

	// One ticker in depth: six views of one group.
	await page.getByTestId('ws-layouts').selectOption({ label: 'One ticker in depth' });
	await expect(panels(page)).toHaveCount(6);
	expect(await tickers(page)).toEqual(Array(6).fill('SPX'));
	// A ticker picked in one panel (the heatmap) changes every panel of its group.
	const search = panels(page).nth(1).getByTestId('ticker-search');
	await search.fill('NDX');
	await search.press('Enter');
	await expect.poll(() => tickers(page)).toEqual(Array(6).fill('NDX'));
	await expect(page).toHaveURL(/g=red\.NDX/);

	// Joining another group takes that group's ticker; the link reopens the same workspace.
	await page.getByTestId('ws-add').click();
	await expect(panels(page)).toHaveCount(7);
	const seventh = panels(page).nth(6);
	await expect(seventh).toHaveAttribute('data-group', 'blue');
	await seventh.getByTestId('ws-group').selectOption('red');
	await expect.poll(() => tickers(page)).toEqual(Array(7).fill('NDX'));
	// The URL follows the edit a moment later (the page changes first).
	await expect(page).not.toHaveURL(/blue/);
	await expect(page).toHaveURL(/p=classic\.gex_full\.red\.3x1&g=/);
	const url = page.url();
	await page.goto('/');
	await page.goto(url);
	await viewsDrawn(page, 7);
	expect(await tickers(page)).toEqual(Array(7).fill('NDX'));
	expect(
		await panels(page).evaluateAll((els) =>
			els.map((e) => `${e.getAttribute('data-view')}:${e.getAttribute('data-category')}`)
		)
	).toEqual([
		'classic:gex_full',
		'heatmap:gex_full',
		'state:gex_zero',
		'orderflow:-',
		'levels:-',
		'price:gex_full',
		'classic:gex_full'
	]);
});

test('keyboard and mouse rearrange, resize and remove panels', async ({ page }) => {
	await page.goto('/workspace');
	await chartsDrawn(page, 3);
	const head = panels(page).nth(0).getByTestId('ws-panel-head');
	await head.focus();
	await page.keyboard.press('Control+ArrowRight');
	await expect.poll(() => tickers(page)).toEqual(['NDX', 'SPX', 'SPY']);
	// Focus stays usable: the moved panel's header is reachable again and resizes by Shift+arrows.
	const spxHead = panels(page).nth(1).getByTestId('ws-panel-head');
	await spxHead.focus();
	await page.keyboard.press('Shift+ArrowRight');
	await page.keyboard.press('Shift+ArrowDown');
	await expect(page).toHaveURL(/p=classic\.gex_full\.red\.3x2/);
	const box = (await panels(page).nth(1).boundingBox())!;
	const other = (await panels(page).nth(0).boundingBox())!;
	expect(box.width).toBeGreaterThan(other.width * 1.3);

	// Mouse: drag the SPY panel's grip onto the first panel.
	const grip = panels(page).nth(2).getByRole('button', { name: 'Drag to move' });
	const g = (await grip.boundingBox())!;
	const target = (await panels(page).nth(0).boundingBox())!;
	await page.mouse.move(g.x + g.width / 2, g.y + g.height / 2);
	await page.mouse.down();
	await page.mouse.move(target.x + 40, target.y + 80, { steps: 5 });
	await page.mouse.up();
	await expect.poll(() => tickers(page)).toEqual(['SPY', 'NDX', 'SPX']);

	// Mouse: the corner handle resizes by whole grid cells (SPY, now first, one column wider).
	const corner = panels(page).nth(0).getByRole('button', { name: 'Drag to resize' });
	await corner.scrollIntoViewIfNeeded();
	const c = (await corner.boundingBox())!;
	const grid = (await page.getByTestId('ws-grid').boundingBox())!;
	await page.mouse.move(c.x + c.width / 2, c.y + c.height / 2);
	await page.mouse.down();
	await page.mouse.move(c.x + grid.width / 6, c.y + c.height / 2, { steps: 5 });
	await page.mouse.up();
	await expect(page).toHaveURL(/p=classic\.gex_full\.green\.3x1/);

	// Delete removes the focused panel.
	await panels(page).nth(0).getByTestId('ws-panel-head').focus();
	await page.keyboard.press('Delete');
	await expect.poll(() => tickers(page)).toEqual(['NDX', 'SPX']);
});

test('a named layout saved in the browser reopens after a reload', async ({ page }) => {
	await page.goto('/workspace');
	await chartsDrawn(page, 3);
	await page.getByTestId('ws-layouts').selectOption({ label: 'Replay desk' });
	await expect(panels(page)).toHaveCount(4);
	await panels(page).nth(3).getByTestId('ws-remove').click();
	// A panel switched to another view keeps its place and group.
	await panels(page).nth(2).getByTestId('ws-view').selectOption('state');
	await expect(panels(page)).toHaveCount(3);
	await page.getByTestId('ws-layout-name').fill('my desk');
	await page.getByTestId('ws-save').click();
	await expect(page.getByTestId('ws-layout-note')).toHaveText(/Saved “my desk”/);

	await page.goto('/workspace');
	await expect(panels(page)).toHaveCount(3);
	expect(await tickers(page)).toEqual(['SPX', 'NDX', 'SPY']);
	await page.reload();
	await chartsDrawn(page, 3);
	await page.getByTestId('ws-layouts').selectOption({ label: 'my desk' });
	await expect(page).toHaveURL(/heatmap/);
	expect(
		await panels(page).evaluateAll((els) =>
			els.map((e) => `${e.getAttribute('data-view')}:${e.getAttribute('data-category')}`)
		)
	).toEqual(['classic:gex_full', 'heatmap:gex_full', 'state:gex_full']);
});

test("a layout saved to the account is listed beside the browser's, reopens, and deletes", async ({
	page
}) => {
	await page.goto('/workspace');
	await chartsDrawn(page, 3);
	await page.getByTestId('ws-layouts').selectOption({ label: 'Index trio' });
	await expect(panels(page)).toHaveCount(6);
	await page.getByTestId('ws-layout-name').fill('trio on the server');
	await page.getByTestId('ws-save-server').click();
	await expect(page.getByTestId('ws-layout-note')).toHaveText(
		/Saved “trio on the server” to your account/
	);

	// Another browser profile (no IndexedDB of this one) finds it on the server.
	const other = await page.context().browser()!.newContext();
	const second = await other.newPage();
	await second.goto(page.url().replace(/\/workspace.*$/, '/workspace'));
	await chartsDrawn(second, 3);
	const menu = second.getByTestId('ws-layouts');
	await expect(menu.locator('optgroup[label="Saved to your account"] option')).toHaveText([
		'trio on the server'
	]);
	await menu.selectOption({ label: 'trio on the server' });
	await expect(panels(second)).toHaveCount(6);
	expect(await tickers(second)).toEqual(['SPX', 'NDX', 'SPY', 'SPX', 'NDX', 'SPY']);
	await second.getByText(/^Saved \(\d+\)$/).click();
	await second
		.getByRole('button', { name: 'Delete layout trio on the server from your account' })
		.click();
	await expect(menu.locator('optgroup[label="Saved to your account"]')).toHaveCount(0);
	await other.close();
});

/** Where each replayed view of the replay desk stands (unix s; null = live). */
async function deskMoments(page: Page) {
	const [classic, heatmap, flow, levels] = [0, 1, 2, 3].map((i) => panels(page).nth(i));
	const num = (s: string | null) => (s ? Number(s) : null);
	const live = (await classic.getByTestId('replay').getAttribute('data-mode')) === 'live';
	return {
		classic: live ? null : await shown(classic),
		// The heatmap's scrubber stands at the moment; without one its label reads "from ...".
		heatmap: (await heatmap.getByTestId('replay-time').innerText()).startsWith('from')
			? null
			: num(await heatmap.getByTestId('replay-scrubber').inputValue()),
		orderflow: num(await flow.getByTestId('timeline').getAttribute('data-cursor')),
		levels: num(await levels.getByTestId('levels-path').getAttribute('data-at'))
	};
}

/** Every panel of the desk shows `at` (the heatmap and Orderflow exactly, Classic and the levels
 * path at their recorded point nearest to it). */
async function deskAt(page: Page, at: number) {
	await expect
		.poll(async () => {
			const m = await deskMoments(page);
			const near = (t: number | null, slack: number) => t !== null && Math.abs(at - t) < slack;
			return [near(m.classic, 30), m.heatmap === at, m.orderflow === at, near(m.levels, 120)];
		})
		.toEqual([true, true, true, true]);
}

test('a replay scrubbed, stepped or played in one panel moves the four views of the group; Latest returns them', async ({
	page
}) => {
	test.setTimeout(240_000);
	await page.goto('/workspace');
	await chartsDrawn(page, 3);
	await page.getByTestId('ws-layouts').selectOption({ label: 'Replay desk' });
	await viewsDrawn(page, 4);
	expect(
		await panels(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-view')))
	).toEqual(['classic', 'heatmap', 'orderflow', 'levels']);
	const first = panels(page).nth(0);
	const slider = first.getByTestId('replay-slider');
	await expect
		.poll(async () => Number(await slider.getAttribute('max')), { timeout: 60_000 })
		.toBeGreaterThanOrEqual(3);
	// The levels path is drawn once the server has recorded two minutes (it reloads each minute).
	await expect(panels(page).nth(3).getByTestId('levels-path')).toBeVisible({ timeout: 90_000 });

	// Classic's slider stepped back: the settled moment goes to the group and its URL.
	await slider.focus();
	await page.keyboard.press('ArrowLeft');
	await page.keyboard.press('ArrowLeft');
	await expect(first.getByTestId('replay')).toHaveAttribute('data-mode', 'replay');
	const moment = await shown(first);
	await expect(page).toHaveURL(new RegExp(`g=red\\.SPX\\.\\.${moment}`), { timeout: 5_000 });
	await deskAt(page, moment);

	// The heatmap stepped back two calculations: the other three follow it.
	const heatmap = panels(page).nth(1);
	const scrubber = heatmap.getByTestId('replay-scrubber');
	await heatmap.getByRole('button', { name: 'Previous calculation' }).click();
	await heatmap.getByRole('button', { name: 'Previous calculation' }).click();
	await expect.poll(async () => Number(await scrubber.inputValue())).toBeLessThan(moment);
	const stepped = Number(await scrubber.inputValue());
	await expect(page).toHaveURL(new RegExp(`g=red\\.SPX\\.\\.${stepped}`), { timeout: 5_000 });
	await deskAt(page, stepped);

	// Played (60x) to the day's latest calculation: the Orderflow panel's crosshair moves with it
	// while it plays (the moments it passed through), and the group stands together at the end.
	await page.evaluate(() => {
		const el = document
			.querySelectorAll('[data-testid="ws-panel"]')[2]
			.querySelector('[data-testid="timeline"]')!;
		const seen: string[] = [];
		(window as unknown as { seen: string[] }).seen = seen;
		new MutationObserver(() => seen.push(el.getAttribute('data-cursor') ?? '')).observe(el, {
			attributeFilter: ['data-cursor']
		});
	});
	await heatmap.getByTestId('replay-play').click();
	await expect(heatmap.getByTestId('replay-play')).toHaveAttribute('aria-pressed', 'false', {
		timeout: 20_000
	});
	const end = Number(await scrubber.inputValue());
	expect(end).toBeGreaterThan(stepped);
	const passed = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
	const between = new Set(passed.map(Number).filter((t) => t > stepped && t < end));
	expect(between.size).toBeGreaterThan(0);
	await deskAt(page, end);
	await expect(page).toHaveURL(new RegExp(`g=red\\.SPX\\.\\.${end}`), { timeout: 5_000 });

	// Latest (feed) returns the whole group to the live edge.
	await page.getByTestId('group-red').getByTestId('group-live').click();
	await expect
		.poll(() => deskMoments(page))
		.toEqual({ classic: null, heatmap: null, orderflow: null, levels: null });
	await expect(page).not.toHaveURL(/g=red\.SPX\./);
});

test("every view is a panel, each streaming through the tab's one stream", async ({ page }) => {
	test.setTimeout(180_000);
	const sockets: string[] = [];
	page.on('websocket', (ws) => sockets.push(ws.url()));
	await page.goto(
		'/workspace?p=classic.gex_full.red.2x1&p=heatmap.gex_full.red.2x1&p=price.gex_full.red.2x1' +
			'&p=state.gex_zero.red.2x1&p=orderflow.-.red.2x1&p=levels.-.red.2x1' +
			'&p=research.gex_oi.blue.3x1&p=watchlist.SPX,NDX.green.3x1&g=red.SPX&g=blue.SPX&g=green.SPX'
	);
	await viewsDrawn(page, 8);
	// The watchlist's own list: a ticker removed in the panel leaves its link.
	const watch = panels(page).nth(7);
	await watch.getByRole('button', { name: 'Remove NDX' }).click();
	await expect(page).toHaveURL(/p=watchlist\.SPX\.green/);
	// One stream for the whole tab, whatever the panels: one decode worker (it owns the /stream
	// socket) and at most the one socket.
	const streamWorkers = page.workers().filter((w) => /\/workers\/worker-[^/]*\.js$/.test(w.url()));
	expect(streamWorkers.map((w) => w.url())).toHaveLength(1);
	expect(sockets.filter((u) => new URL(u).pathname.endsWith('/stream')).length).toBeLessThan(2);
});

test('on a phone the panels stack in one column, the group bar is in thumb reach, nothing scrolls sideways', async ({
	page
}) => {
	await page.setViewportSize({ width: 390, height: 844 });
	await page.goto('/workspace');
	await chartsDrawn(page, 3);
	const xs = await panels(page).evaluateAll((els) =>
		els.map((e) => Math.round(e.getBoundingClientRect().left))
	);
	expect(new Set(xs).size).toBe(1);
	const overflow = await page.evaluate(
		() => document.documentElement.scrollWidth - document.documentElement.clientWidth
	);
	expect(overflow).toBeLessThanOrEqual(0);
	const bar = (await page.getByTestId('ws-groups').boundingBox())!;
	expect(bar.y + bar.height).toBeLessThanOrEqual(844);
	expect(bar.y).toBeGreaterThan(844 / 2);
});

test('capture: every kind of panel names its data time in the manifest', async ({ page }) => {
	await page.goto('/workspace');
	await chartsDrawn(page, 3);
	await page.getByTestId('ws-layouts').selectOption({ label: 'One ticker in depth' });
	await viewsDrawn(page, 6);
	// Each panel says its data's time once it has data (live: the freshness badge at least).
	for (let i = 0; i < 6; i++)
		await expect(panels(page).nth(i).locator('[data-unix]').first()).toBeAttached({
			timeout: 30_000
		});
	const now = Date.now() / 1000;
	const [zipDownload] = await Promise.all([
		page.waitForEvent('download'),
		page.getByTestId('ws-capture-zip').click()
	]);
	const files = unzipSync(new Uint8Array(readFileSync((await zipDownload.path())!)));
	const manifest = JSON.parse(strFromU8(files['manifest.json'])) as {
		panels: { view: string; dataTime: number | null }[];
	};
	expect(manifest.panels.map((p) => p.view)).toEqual([
		'classic',
		'heatmap',
		'state',
		'orderflow',
		'levels',
		'price'
	]);
	for (const p of manifest.panels) {
		// The embedded market's data: today's session or the last one replayed (within a week).
		expect(p.dataTime, p.view).not.toBeNull();
		expect(now - p.dataTime!, p.view).toBeLessThan(7 * 86_400);
		expect(now - p.dataTime!, p.view).toBeGreaterThan(-60);
	}
});

/** A PNG's width and height, from its IHDR chunk. */
function pngSize(bytes: Uint8Array): { w: number; h: number } {
	expect([...bytes.subarray(1, 4)].map((b) => String.fromCharCode(b)).join('')).toBe('PNG');
	const v = new DataView(bytes.buffer, bytes.byteOffset);
	return { w: v.getUint32(16), h: v.getUint32(20) };
}

test('capture: one PNG the size of the grid, and a zip of one PNG per panel with a manifest of data times', async ({
	page
}) => {
	await page.goto('/workspace');
	await chartsDrawn(page, 3);
	// The panels' data times at the moment of the capture (a replayed group holds them still).
	const [download] = await Promise.all([
		page.waitForEvent('download'),
		page.getByTestId('ws-capture').click()
	]);
	expect(download.suggestedFilename()).toMatch(/^workspace-.*\.png$/);
	await download.saveAs('test-results/workspace-capture.png');
	const png = new Uint8Array(readFileSync('test-results/workspace-capture.png'));
	const grid = (await page.getByTestId('ws-grid').boundingBox())!;
	const dpr = await page.evaluate(() => devicePixelRatio);
	expect(pngSize(png)).toEqual({
		w: Math.round(grid.width * dpr),
		h: Math.round(grid.height * dpr)
	});
	// Drawn, not blank: the histograms' green and red bars are in it (captions alone are grey).
	const coloured = await page.evaluate(async (b64) => {
		const img = new Image();
		img.src = `data:image/png;base64,${b64}`;
		await img.decode();
		const c = document.createElement('canvas');
		c.width = img.width;
		c.height = img.height;
		const ctx = c.getContext('2d')!;
		ctx.drawImage(img, 0, 0);
		const d = ctx.getImageData(0, 0, c.width, c.height).data;
		let n = 0;
		for (let i = 0; i < d.length; i += 4) {
			if (Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) > 80) n++;
		}
		return n;
	}, Buffer.from(png).toString('base64'));
	// (Without the charts drawn in, 0; with them, 1,800-10,000 by the market's bar heights.)
	expect(coloured).toBeGreaterThan(500);

	const [zipDownload] = await Promise.all([
		page.waitForEvent('download'),
		page.getByTestId('ws-capture-zip').click()
	]);
	const files = unzipSync(new Uint8Array(readFileSync((await zipDownload.path())!)));
	const manifest = JSON.parse(strFromU8(files['manifest.json'])) as {
		panels: { file: string; ticker: string; view: string; category: string; dataTime: number }[];
	};
	expect(manifest.panels.map((p) => p.ticker)).toEqual(['SPX', 'NDX', 'SPY']);
	for (const [i, p] of manifest.panels.entries()) {
		expect(p.view).toBe('classic');
		const shownAt = await shown(panels(page).nth(i));
		// The data time named is the panel's, as it stood at the capture (it may have moved since).
		expect(p.dataTime).toBeGreaterThan(0);
		expect(shownAt - p.dataTime).toBeGreaterThanOrEqual(0);
		expect(shownAt - p.dataTime).toBeLessThan(60);
		const box = (await panels(page).nth(i).boundingBox())!;
		expect(pngSize(files[p.file])).toEqual({
			w: Math.round(box.width * dpr),
			h: Math.round(box.height * dpr)
		});
	}
});
