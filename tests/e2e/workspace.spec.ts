import { readFileSync } from 'node:fs';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { strFromU8, unzipSync } from 'fflate';

/**
 * The workspace (issue 28): panels of the Classic view linked by colour groups, the whole
 * workspace in its URL, named layouts in IndexedDB, rearranging and resizing by mouse and
 * keyboard, a group replay moving every panel, and the phone's one column.
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

const shown = async (panel: Locator) =>
	Number(await panel.getByTestId('timestamp').getAttribute('data-unix'));

test('a bare /workspace opens the index trio; the URL round trips and a ticker change moves its group', async ({
	page
}) => {
	await page.goto('/workspace');
	await chartsDrawn(page, 3);
	expect(await tickers(page)).toEqual(['SPX', 'NDX', 'SPY']);

	// One ticker in depth: three panels of one group.
	await page.getByTestId('ws-layouts').selectOption({ label: 'One ticker in depth' });
	await expect(panels(page)).toHaveCount(3);
	expect(await tickers(page)).toEqual(['SPX', 'SPX', 'SPX']);
	// A ticker picked in one panel changes every panel of its group.
	const search = panels(page).nth(1).getByTestId('ticker-search');
	await search.fill('NDX');
	await search.press('Enter');
	await expect.poll(() => tickers(page)).toEqual(['NDX', 'NDX', 'NDX']);
	await expect(page).toHaveURL(/g=red\.NDX/);

	// Joining another group takes that group's ticker; the link reopens the same workspace.
	await page.getByTestId('ws-add').click();
	await expect(panels(page)).toHaveCount(4);
	const fourth = panels(page).nth(3);
	await expect(fourth).toHaveAttribute('data-group', 'blue');
	await fourth.getByTestId('ws-group').selectOption('red');
	await expect.poll(() => tickers(page)).toEqual(['NDX', 'NDX', 'NDX', 'NDX']);
	// The URL follows the edit a moment later (the page changes first).
	await expect(page).toHaveURL(/p=classic\.gex_full\.red\.3x1$|p=classic\.gex_full\.red\.3x1&/);
	await expect(page).not.toHaveURL(/blue/);
	const url = page.url();
	await page.goto('/');
	await page.goto(url);
	await chartsDrawn(page, 4);
	expect(await tickers(page)).toEqual(['NDX', 'NDX', 'NDX', 'NDX']);
	expect(
		await panels(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-category')))
	).toEqual(['gex_full', 'gex_zero', 'gex_one', 'gex_full']);
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
	await expect(page).toHaveURL(/gex_zero/);
	expect(
		await panels(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-category')))
	).toEqual(['gex_full', 'gex_zero', 'gex_one']);
});

test('a replay scrubbed in one panel moves all four panels of the group; Latest returns them', async ({
	page
}) => {
	test.setTimeout(150_000);
	await page.goto('/workspace');
	await chartsDrawn(page, 3);
	await page.getByTestId('ws-layouts').selectOption({ label: 'Replay desk' });
	await chartsDrawn(page, 4);
	const first = panels(page).nth(0);
	const slider = first.getByTestId('replay-slider');
	await expect
		.poll(async () => Number(await slider.getAttribute('max')), { timeout: 60_000 })
		.toBeGreaterThanOrEqual(3);
	await slider.focus();
	await page.keyboard.press('ArrowLeft');
	await page.keyboard.press('ArrowLeft');
	await expect(first.getByTestId('replay')).toHaveAttribute('data-mode', 'replay');
	const moment = await shown(first);
	// The settled moment goes to the group (and its URL), and every panel follows it.
	await expect(page).toHaveURL(new RegExp(`g=red\\.SPX\\.\\.\\d+`), { timeout: 5_000 });
	const at = Number(/g=red\.SPX\.\.(\d+)/.exec(page.url())![1]);
	expect(at).toBe(moment);
	for (let i = 1; i < 4; i++) {
		const p = panels(page).nth(i);
		await expect(p.getByTestId('replay')).toHaveAttribute('data-mode', 'replay');
		const t = await shown(p);
		expect(t).toBeLessThanOrEqual(at);
		expect(at - t).toBeLessThan(30);
	}
	// Latest (feed) returns the whole group to the live edge.
	await page.getByTestId('group-red').getByTestId('group-live').click();
	for (let i = 0; i < 4; i++) {
		await expect(panels(page).nth(i).getByTestId('replay')).toHaveAttribute('data-mode', 'live');
	}
	await expect(page).not.toHaveURL(/g=red\.SPX\./);
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
