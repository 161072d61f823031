import { readFileSync } from 'node:fs';
import { chromium, expect, test, type Page } from '@playwright/test';
import { useDemoAccount } from './demoAccount';

/** What the research service answers for an /api path (the same proxy the page uses). */
async function apiJson<T>(page: Page, path: string): Promise<T> {
	const res = await page.request.get(`/api/${path}`);
	expect(res.status(), path).toBe(200);
	return (await res.json()) as T;
}

/** Distinct colours (quantised to 5 bits per channel) of the WebGL canvas, read back in 2D. */
async function canvasColours(page: Page): Promise<number> {
	return page.getByTestId('surface-canvas').evaluate((el) => {
		const canvas = el as HTMLCanvasElement;
		const copy = document.createElement('canvas');
		copy.width = canvas.width;
		copy.height = canvas.height;
		const ctx = copy.getContext('2d')!;
		ctx.drawImage(canvas, 0, 0);
		const px = ctx.getImageData(0, 0, copy.width, copy.height).data;
		const seen = new Set<number>();
		for (let i = 0; i < px.length; i += 4) {
			seen.add(((px[i] >> 3) << 10) | ((px[i + 1] >> 3) << 5) | (px[i + 2] >> 3));
		}
		return seen.size;
	});
}

/** A strict RFC 4180 reader (quoted cells, doubled quotes, CRLF rows). */
function parseCsv(text: string): string[][] {
	const rows: string[][] = [];
	let row: string[] = [];
	let cell = '';
	let quoted = false;
	for (let i = 0; i < text.length; i++) {
		const ch = text[i];
		if (quoted) {
			if (ch === '"' && text[i + 1] === '"') {
				cell += '"';
				i++;
			} else if (ch === '"') quoted = false;
			else cell += ch;
		} else if (ch === '"') quoted = true;
		else if (ch === ',') {
			row.push(cell);
			cell = '';
		} else if (ch === '\r' && text[i + 1] === '\n') {
			row.push(cell);
			rows.push(row);
			row = [];
			cell = '';
			i++;
		} else cell += ch;
	}
	return rows;
}

test('the IV surface is drawn in WebGL from the service, reads out points and renders on demand', async ({
	page
}) => {
	await page.goto('/SPX/research/iv_mid');
	const canvas = page.getByTestId('surface-canvas');
	await expect(canvas).toHaveAttribute('data-frames', /^[1-9]\d*$/);
	await expect(page.getByTestId('surface-unavailable')).toHaveCount(0);

	// The mesh is the service's grid: one vertex per (expiry, strike) cell.
	const api = await apiJson<{ surface: { strikes: number[]; expiries: string[] } }>(
		page,
		'research/SPX/iv_mid?format=json&view=surface'
	);
	const cells = api.surface.strikes.length * api.surface.expiries.length;
	await expect(canvas).toHaveAttribute('data-vertices', String(cells));
	expect(Number(await canvas.getAttribute('data-triangles'))).toBeGreaterThan(100);

	// The picture is not a blank box: many colours from the ramp, not one clear colour.
	expect(await canvasColours(page)).toBeGreaterThan(40);
	await expect(page.getByTestId('surface-legend')).toContainText('%');
	await expect(page.locator('.labels .label')).not.toHaveCount(0);
	await page.screenshot({ path: 'test-results/research-surface.png' });

	// Hover reads a point of the grid; its value is the service's (or interpolated between two).
	const box = (await canvas.boundingBox())!;
	const readout = page.getByTestId('surface-readout');
	let found = false;
	for (const [fx, fy] of [
		[0.5, 0.55],
		[0.45, 0.6],
		[0.55, 0.5],
		[0.4, 0.55],
		[0.6, 0.6],
		[0.5, 0.65]
	]) {
		await page.mouse.move(box.x + box.width * fx, box.y + box.height * fy);
		if ((await readout.getAttribute('data-strike')) !== null) {
			found = true;
			break;
		}
	}
	expect(found).toBe(true);
	await expect(readout).toContainText('Strike');
	const strike = Number(await readout.getAttribute('data-strike'));
	const expiry = (await readout.getAttribute('data-expiry'))!;
	const value = Number(await readout.getAttribute('data-value'));
	const full = await apiJson<{
		surface: { strikes: number[]; expiries: string[]; values: (number | null)[][] };
	}>(page, 'research/SPX/iv_mid?format=json&view=surface');
	const row = full.surface.values[full.surface.expiries.indexOf(expiry)];
	const served = row[full.surface.strikes.indexOf(strike)];
	if ((await readout.getAttribute('data-interpolated')) === 'true') {
		const known = row.filter((v): v is number => v !== null);
		expect(value).toBeGreaterThanOrEqual(Math.min(...known) - 1e-6);
		expect(value).toBeLessThanOrEqual(Math.max(...known) + 1e-6);
	} else {
		expect(served).not.toBeNull();
		expect(Math.abs(value - served!)).toBeLessThan(1e-6);
	}

	// Orbiting draws frames; once the camera settles nothing renders (no continuous loop).
	const before = Number(await canvas.getAttribute('data-frames'));
	await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.3);
	await page.mouse.down();
	await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.4, { steps: 8 });
	await page.mouse.up();
	await expect
		.poll(async () => Number(await canvas.getAttribute('data-frames')))
		.toBeGreaterThan(before + 3);
	// Damping eases the camera to a stop (slowly in software WebGL), then frames stop.
	let last = -1;
	await expect
		.poll(
			async () => {
				const n = Number(await canvas.getAttribute('data-frames'));
				const still = n === last;
				last = n;
				return still;
			},
			{ intervals: [1000], timeout: 30_000 }
		)
		.toBe(true);
	const settled = Number(await canvas.getAttribute('data-frames'));
	await page.waitForTimeout(1500);
	expect(Number(await canvas.getAttribute('data-frames'))).toBe(settled);

	// Reset view and the keyboard orbit both draw.
	await page.getByTestId('surface-reset').click();
	await expect
		.poll(async () => Number(await canvas.getAttribute('data-frames')))
		.toBeGreaterThan(settled);
	await canvas.focus();
	const beforeKey = Number(await canvas.getAttribute('data-frames'));
	await page.keyboard.press('ArrowLeft');
	await expect
		.poll(async () => Number(await canvas.getAttribute('data-frames')))
		.toBeGreaterThan(beforeKey);
	// Shift + arrows walk the readout along the strikes of one expiry.
	await page.keyboard.press('Escape');
	await page.keyboard.press('Shift+ArrowRight');
	const firstStrike = Number(await readout.getAttribute('data-strike'));
	const firstExpiry = await readout.getAttribute('data-expiry');
	await page.keyboard.press('Shift+ArrowRight');
	await expect(readout).toHaveAttribute('data-expiry', firstExpiry!);
	expect(Number(await readout.getAttribute('data-strike'))).toBeGreaterThan(firstStrike);

	// Moneyness axis: same data (no new request), another x axis.
	const requests: string[] = [];
	page.on('request', (r) => {
		if (r.url().includes('/api/research/')) requests.push(r.url());
	});
	await page.getByTestId('axis-moneyness').click();
	await expect(page).toHaveURL(/axis=moneyness/);
	await expect(page.locator('.labels .label.title').first()).toContainText('Moneyness');
	await expect(canvas).toHaveAttribute('data-rebuilds', '1');
	expect(requests).toEqual([]);

	// Refresh: one request, and a grid of the same size is rewritten in the same buffers.
	const framesBefore = Number(await canvas.getAttribute('data-frames'));
	await page.getByTestId('refresh').click();
	await expect.poll(() => requests.length).toBe(1);
	await expect
		.poll(async () => Number(await canvas.getAttribute('data-frames')))
		.toBeGreaterThan(framesBefore);
	await expect(canvas).toHaveAttribute('data-rebuilds', '1');
});

test('skew and term draw lines from the service; chosen expiries round-trip the URL', async ({
	page
}) => {
	await page.goto('/SPX/research/iv_mid?view=skew');
	const skew = page.getByTestId('skew-chart');
	await expect(skew.locator('path.line').first()).toBeVisible();
	const paths = await skew
		.locator('path.line')
		.evaluateAll((ps) => ps.map((p) => p.getAttribute('d') ?? ''));
	expect(paths.length).toBeGreaterThanOrEqual(4);
	for (const d of paths) expect(d.length).toBeGreaterThan(40);

	// Pick two expiries: the URL names them, a fresh page shows the same two.
	const chips = page.locator('[data-testid^="expiry-"]');
	const names = await chips.evaluateAll((cs) =>
		cs.map((c) => c.getAttribute('data-testid')!.slice('expiry-'.length))
	);
	expect(names.length).toBeGreaterThan(5);
	for (const n of names.slice(1, 4)) await page.getByTestId(`expiry-${n}`).click();
	await page.getByTestId(`expiry-${names[6]}`).click();
	await expect(page).toHaveURL(new RegExp(`exp=${names[0]},${names[6]}$`));
	const shared = page.url();
	const other = await page.context().newPage();
	await other.goto(shared);
	await expect(other.getByTestId(`expiry-${names[6]}`)).toHaveAttribute('aria-pressed', 'true');
	await expect(other.getByTestId(`expiry-${names[1]}`)).toHaveAttribute('aria-pressed', 'false');
	const series = await other
		.getByTestId('skew-chart')
		.locator('path.line')
		.evaluateAll((ps) => ps.map((p) => p.getAttribute('data-series')!.split('|')[0]));
	expect(new Set(series)).toEqual(new Set([names[0], names[6]]));
	await other.close();

	await page.getByTestId('display-term').click();
	await expect(page).toHaveURL(/view=term/);
	const term = page.getByTestId('term-chart');
	await expect(term.locator('path.line').first()).toBeVisible();
	const api = await apiJson<{ term: unknown[] }>(page, 'research/SPX/iv_mid?format=json&view=term');
	expect(await term.locator('circle.dot').count()).toBe(api.term.length);
	await page.screenshot({ path: 'test-results/research-term.png' });
});

test('a strike chart of any metric with filters in the URL; downloads hold exactly what is shown', async ({
	page
}) => {
	await page.goto('/SPX/research/gex_oi?strikes=20&end_dte=7');
	const bars = page.locator('rect.bar');
	await expect(bars.first()).toBeVisible();
	const shown = await bars.evaluateAll((rs) =>
		rs.map((r) => [
			Number(r.getAttribute('data-strike')),
			r.getAttribute('data-type')!,
			Number(r.getAttribute('data-value'))
		])
	);
	expect(shown.length).toBeGreaterThan(10);

	// The bars are the service's rows summed over expiries per strike and side.
	const api = await apiJson<{
		rows: { strike: number; type: string; value: number }[];
	}>(page, 'research/SPX/gex_oi?end_dte=7&format=json&strikes=20');
	const sums = new Map<string, number>();
	for (const r of api.rows) {
		sums.set(`${r.strike}|${r.type}`, (sums.get(`${r.strike}|${r.type}`) ?? 0) + r.value);
	}
	expect(shown.length).toBe(sums.size);
	for (const [k, t, v] of shown) {
		const want = sums.get(`${k}|${t}`)!;
		expect(Math.abs((v as number) - want)).toBeLessThanOrEqual(1e-9 * Math.abs(want) + 1e-9);
	}

	const [csvDownload] = await Promise.all([
		page.waitForEvent('download'),
		page.getByTestId('download-csv').click()
	]);
	expect(csvDownload.suggestedFilename()).toMatch(/^SPX_gex_oi_strikes_\d{8}T\d{4}\.csv$/);
	const csv = parseCsv(readFileSync((await csvDownload.path())!, 'utf8'));
	expect(csv[0]).toEqual(['strike', 'type', 'value']);
	expect(csv.slice(1).map(([k, t, v]) => [Number(k), t, Number(v)])).toEqual(shown);

	const [jsonDownload] = await Promise.all([
		page.waitForEvent('download'),
		page.getByTestId('download-json').click()
	]);
	const json = JSON.parse(readFileSync((await jsonDownload.path())!, 'utf8'));
	expect(json).toMatchObject({
		ticker: 'SPX',
		metric: 'gex_oi',
		display: 'strikes',
		filters: { strikes: 20, end_dte: 7 },
		view: '/SPX/research/gex_oi?strikes=20&end_dte=7',
		columns: ['strike', 'type', 'value']
	});
	expect(json.rows).toEqual(shown);
	await page.screenshot({ path: 'test-results/research-strikes.png' });
});

test('filters are validated, written to the URL and restored from it', async ({ page }) => {
	await page.goto('/SPX/research/vex_both');
	await expect(page.locator('rect.bar').first()).toBeVisible();
	await page.locator('summary', { hasText: 'Filters' }).click();
	const form = page.getByTestId('filters');
	await form.locator('input[name=start_dte]').fill('9');
	await form.locator('input[name=end_dte]').fill('3');
	await page.getByTestId('filters-apply').click();
	await expect(page.getByTestId('filters-problem')).toContainText(
		'start_dte 9 must not be after end_dte 3'
	);
	await expect(page).toHaveURL(/\/SPX\/research\/vex_both$/);

	await form.locator('input[name=start_dte]').fill('0');
	await form.locator('input[name=end_dte]').fill('30');
	await form.locator('input[name=strikes]').fill('15');
	await form.locator('select[name=contract_filter]').selectOption('puts');
	await form.locator('input[name=limit_y]').check();
	await page.getByTestId('filters-apply').click();
	await expect(page).toHaveURL(
		/\/SPX\/research\/vex_both\?strikes=15&start_dte=0&end_dte=30&contract_filter=puts&limit_y=true$/
	);
	await expect
		.poll(
			async () =>
				new Set(
					await page
						.locator('rect.bar')
						.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-type')))
				)
		)
		.toEqual(new Set(['put']));

	const other = await page.context().newPage();
	await other.goto(page.url());
	await expect(other.locator('rect.bar').first()).toBeVisible();
	const f = other.getByTestId('filters');
	await expect(f.locator('input[name=strikes]')).toHaveValue('15');
	await expect(f.locator('input[name=end_dte]')).toHaveValue('30');
	await expect(f.locator('select[name=contract_filter]')).toHaveValue('puts');
	await expect(f.locator('input[name=limit_y]')).toBeChecked();
	await other.close();

	// A hand-edited link with a bad value says what is wrong.
	await page.goto('/SPX/research/gex_oi?moneyness_filter=deep');
	await expect(page.getByTestId('invalid-view')).toContainText(
		'moneyness_filter must be one of atm, itm, ntm, otm'
	);
});

test('research is fetched on change and on Refresh, never polled; the cached copy paints offline', async ({
	page
}) => {
	const research: string[] = [];
	page.on('request', (r) => {
		if (r.url().includes('/api/research/')) research.push(r.url());
	});
	await page.goto('/SPX/research/gex_vol?strikes=10');
	await expect(page.locator('rect.bar').first()).toBeVisible();
	await page.waitForTimeout(3000);
	expect(research).toHaveLength(1);
	await page.getByTestId('refresh').click();
	await expect.poll(() => research.length).toBe(2);
	await expect(page.getByTestId('refresh')).toBeEnabled();

	// The upstream unreachable: the last answer comes from IndexedDB, marked as a cached copy.
	await page.route('**/api/research/**', (route) => route.abort());
	await page.reload();
	await expect(page.getByTestId('stale')).toContainText('Cached copy');
	await expect(page.locator('rect.bar').first()).toBeVisible();
	await expect(page.getByTestId('error')).toContainText('Network error');
});

test('without a Research key the research views are locked, with the reason', async ({ page }) => {
	try {
		await useDemoAccount(page, 'demo-quant');
		await expect(page.getByTestId('research-pool-locked')).toContainText('No Research key');
		await page.goto('/SPX/research/iv_mid');
		await expect(page.getByTestId('locked')).toContainText('No Research key is configured');
		await expect(page.getByTestId('locked')).toContainText('Research add-on');
		await expect(page.getByTestId('surface-canvas')).toHaveCount(0);
		// The lock comes first (issue 25 item 11): no metric list, filters or Refresh above it.
		await expect(page.getByLabel('View controls')).toHaveCount(0);
		await expect(page.getByTestId('refresh')).toHaveCount(0);
	} finally {
		await useDemoAccount(page, 'demo-research');
	}
	// With the research account the pool shows this dashboard's spending against the allowance.
	await page.goto('/SPX/research/gex_oi?strikes=5');
	await expect(page.locator('rect.bar').first()).toBeVisible();
	await page.goto('/account');
	await expect(page.getByTestId('research-key-id')).toContainText('research_');
	await expect(page.getByTestId('research-access')).toContainText('Research charts');
	const used = await page.getByTestId('research-used').first().textContent();
	expect(Number(used?.replaceAll(',', ''))).toBeGreaterThan(0);
	await expect(page.getByTestId('research-ledger')).toContainText('1,000,000');
});

test('phone width: the surface fits without horizontal scroll and taps read a point', async ({
	browser
}) => {
	const context = await browser.newContext({
		viewport: { width: 390, height: 844 },
		hasTouch: true,
		isMobile: true
	});
	const page = await context.newPage();
	await page.goto('/SPX/research/iv_mid?theme=light');
	const canvas = page.getByTestId('surface-canvas');
	await expect(canvas).toHaveAttribute('data-frames', /^[1-9]\d*$/);
	expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
	expect(await canvasColours(page)).toBeGreaterThan(40);
	const box = (await canvas.boundingBox())!;
	const readout = page.getByTestId('surface-readout');
	for (const [fx, fy] of [
		[0.5, 0.55],
		[0.45, 0.6],
		[0.55, 0.5],
		[0.5, 0.62]
	]) {
		await page.touchscreen.tap(box.x + box.width * fx, box.y + box.height * fy);
		if ((await readout.getAttribute('data-strike')) !== null) break;
	}
	await expect(readout).toContainText('Strike');
	await page.screenshot({ path: 'test-results/research-phone.png', fullPage: true });
	await context.close();
});

test('without WebGL the surface says so instead of drawing a blank box', async () => {
	const browser = await chromium.launch({
		executablePath: '/usr/bin/chromium',
		args: ['--no-sandbox', '--disable-gpu', '--disable-webgl', '--disable-3d-apis']
	});
	try {
		const page = await browser.newPage({ baseURL: test.info().project.use.baseURL });
		await page.goto('/SPX/research/iv_mid');
		await expect(page.getByTestId('surface-unavailable')).toContainText('WebGL is unavailable');
		await expect(page.getByTestId('surface-unavailable')).toContainText('Skew and Term views');
		// The data is still there to read and download.
		await expect(page.getByTestId('download-csv')).toBeEnabled();
		await page.getByTestId('display-skew').click();
		await expect(page.getByTestId('skew-chart').locator('path.line').first()).toBeVisible();
	} finally {
		await browser.close();
	}
});

test('a chain-level metric is one level per expiry, with the all-expiry level', async ({
	page
}) => {
	await page.goto('/SPX/research/max_pain');
	const api = await apiJson<{ level: { value: number; expiries: { value: number | null }[] } }>(
		page,
		'research/SPX/max_pain?format=json&view=term'
	);
	await expect(page.getByTestId('term-chart').locator('circle.dot')).toHaveCount(
		api.level.expiries.filter((e) => e.value !== null).length
	);
	await expect(page.getByTestId('level-value')).toHaveText(api.level.value.toLocaleString('en-US'));
	await expect(page.getByTestId('display-surface')).toHaveCount(0);
});

test('an interpolated level (gamma flip) reads as a price, not six decimals', async ({ page }) => {
	await page.goto('/SPX/research/gamma_flip');
	const api = await apiJson<{ level: { value: number | null } }>(
		page,
		'research/SPX/gamma_flip?format=json&view=term'
	);
	const v = api.level.value;
	const expected =
		v === null
			? 'none'
			: v.toLocaleString('en-US', {
					minimumFractionDigits: Number.isInteger(v) ? 0 : 2,
					maximumFractionDigits: Number.isInteger(v) ? 0 : 2
				});
	await expect(page.getByTestId('level-value')).toHaveText(expected);
	await expect(page.getByTestId('level-value')).toHaveText(/^(none|[\d,]+(\.\d{2})?)$/);
});
