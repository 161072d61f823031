/**
 * The value charts (research skew and term lines, the research strike chart, the chain's gamma
 * profile) are keyboard sliders with one shared set of attributes (ValueCursor.slider): each is
 * focusable, arrow keys select a value that the slider's value text reads out, Escape clears it,
 * and a tap on a touch screen selects the value under the finger.
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import { syntheticCboeFile } from '../../src/lib/analytics/cboeQuotes.test-support';

test.use({ hasTouch: true });

/** Keyboard, then a tap: the value text follows; `empty` is the text with nothing selected. */
async function readsByKeyAndTap(page: Page, svg: Locator, empty: string, selected: RegExp) {
	await expect(svg).toHaveAttribute('role', 'slider');
	await expect(svg).toHaveAttribute('tabindex', '0');
	await expect(svg).toHaveAttribute('aria-valuetext', empty);
	const min = Number(await svg.getAttribute('aria-valuemin'));
	const max = Number(await svg.getAttribute('aria-valuemax'));
	expect(max).toBeGreaterThan(min);

	await svg.focus();
	await page.keyboard.press('ArrowRight');
	await expect(svg).toHaveAttribute('aria-valuetext', selected);
	const first = Number(await svg.getAttribute('aria-valuenow'));
	await page.keyboard.press('ArrowRight');
	await expect
		.poll(async () => Number(await svg.getAttribute('aria-valuenow')))
		.toBeGreaterThan(first);
	await page.keyboard.press('Escape');
	await expect(svg).toHaveAttribute('aria-valuetext', empty);

	const box = (await svg.boundingBox())!;
	await page.touchscreen.tap(box.x + box.width * 0.6, box.y + box.height * 0.5);
	await expect(svg).toHaveAttribute('aria-valuetext', selected);
	const tapped = Number(await svg.getAttribute('aria-valuenow'));
	expect(tapped).toBeGreaterThanOrEqual(min);
	expect(tapped).toBeLessThanOrEqual(max);
}

test('research skew and term lines read by arrow keys and by a tap', async ({ page }) => {
	await page.goto('/SPX/research/iv_mid?view=skew');
	const skew = page.getByTestId('skew-chart');
	await expect(skew.locator('path.line').first()).toBeVisible();
	await readsByKeyAndTap(page, skew.locator('svg[role="slider"]'), 'no point selected', /: .+/);

	await page.getByTestId('display-term').click();
	const term = page.getByTestId('term-chart');
	await expect(term.locator('path.line').first()).toBeVisible();
	await readsByKeyAndTap(page, term.locator('svg[role="slider"]'), 'no point selected', /: .+/);
});

test('the research strike chart reads strikes by arrow keys and by a tap', async ({ page }) => {
	await page.goto('/SPX/research/gex_oi?strikes=20&end_dte=7');
	const chart = page.getByTestId('strike-chart');
	await expect(chart.locator('rect.bar').first()).toBeVisible();
	await expect(chart).toHaveAttribute('aria-roledescription', 'strike chart');
	await readsByKeyAndTap(page, chart, 'no strike selected', /^strike [\d,.]+: (calls|puts)/);
});

test('the chain gamma profile reads every curve by arrow keys and by a tap', async ({ page }) => {
	await page.goto('/chain');
	await expect(page.getByTestId('chain-drop')).toHaveAttribute('data-ready', 'true');
	await page.getByTestId('chain-file').setInputFiles({
		name: 'quotedata.csv',
		mimeType: 'text/csv',
		buffer: Buffer.from(syntheticCboeFile('2026-11-16', { eol: '\r\n' }))
	});
	const profile = page.getByTestId('gamma-profile');
	await expect(profile.locator('path.curve').first()).toBeVisible();
	await readsByKeyAndTap(
		page,
		profile.locator('svg[role="slider"]'),
		'no spot selected',
		/^spot [\d,.]+: .+/
	);
});
