import { expect, test, type Page } from '@playwright/test';
import { syntheticCboeFile } from '../../src/lib/analytics/cboeQuotes.test-support';

/** A 12,000-contract SPX chain in Cboe's quote-data layout, as of Monday 2026-11-16 10:15 EST. */
const QUOTES = syntheticCboeFile('2026-11-16', { eol: '\r\n' });

async function dropFile(page: Page, text: string, name: string): Promise<void> {
	const dataTransfer = await page.evaluateHandle(
		({ text, name }) => {
			const dt = new DataTransfer();
			dt.items.add(new File([text], name, { type: 'text/csv' }));
			return dt;
		},
		{ text, name }
	);
	await page.getByTestId('chain-drop').dispatchEvent('drop', { dataTransfer });
}

const flipValue = (page: Page) =>
	page.getByTestId('flip-line').getAttribute('data-value').then(Number);

test('a dropped Cboe file is analysed in the browser, follows the conventions and survives a reload', async ({
	page
}) => {
	const uploads: string[] = [];
	page.on('request', (r) => {
		if (r.method() !== 'GET') uploads.push(`${r.method()} ${r.url()}`);
	});
	await page.goto('/chain');
	await expect(page.getByRole('link', { name: 'Chain' })).toHaveAttribute('aria-current', 'page');
	await expect(page.getByTestId('chain-empty')).toBeVisible();
	await expect(page.getByTestId('chain-drop')).toHaveAttribute('data-ready', 'true');

	await dropFile(page, QUOTES, 'quotedata.csv');
	await expect(page.getByTestId('chain-meta')).toContainText('quotedata.csv');
	await expect(page.getByTestId('chain-meta')).toContainText('SPX (S&P 500 INDEX)');
	// The histogram: one net bar per strike within ±10% of spot.
	const bars = page.getByTestId('gex-panel').locator('rect.bar');
	await expect.poll(() => bars.count()).toBeGreaterThan(50);
	// The profile with its flip and the regions either side of it.
	await expect(page.getByTestId('gamma-profile')).toBeVisible();
	await expect(page.getByTestId('flip-label')).toBeVisible();
	const calendarFlip = await flipValue(page);
	expect(calendarFlip).toBeGreaterThan(4000);
	expect(calendarFlip).toBeLessThan(6000);
	await expect(page.getByTestId('gamma-profile').locator('rect.region.short')).not.toHaveCount(0);
	await expect(page.getByTestId('gamma-profile').locator('rect.region.long')).not.toHaveCount(0);
	await expect(page.getByTestId('gamma-profile').locator('path.curve')).toHaveCount(3);
	await expect(page.getByTestId('flip-value')).toHaveText(
		new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(
			calendarFlip
		)
	);
	await expect(page.getByTestId('conventions-stated')).toContainText('/ 365 days');

	// Calls and puts apart: two bars per strike.
	const netCount = await bars.count();
	await page.getByTestId('sides-split').click();
	await expect(page).toHaveURL(/sides=split/);
	await expect.poll(() => bars.count()).toBe(2 * netCount);

	// The smile per expiry: the nearest six, then one more picked.
	const smileLines = page.getByTestId('smile-chart').locator('path.line');
	await expect(smileLines).toHaveCount(6);
	await page.getByTestId('smile-2026-12-21').click();
	await expect(page).toHaveURL(/smile=.*2026-12-21/);
	await expect(smileLines).toHaveCount(7);

	// The service's levels beside the chain's (SPX is covered by the embedded service).
	await expect(page.getByTestId('compare-service')).toContainText(/\d,\d{3}\.\d\d/);
	await expect(page.getByTestId('compare-chain')).toContainText(/\d,\d{3}\.\d\d/);

	// The conventions move the analysis.
	await page.getByTestId('convention-preset').selectOption('perfiliev');
	await expect(page).toHaveURL(/preset=perfiliev/);
	await expect(page.getByTestId('conventions-stated')).toContainText('262');
	await expect.poll(() => flipValue(page)).not.toBe(calendarFlip);
	const perfilievFlip = await flipValue(page);
	await page.getByTestId('convention-rate').fill('5');
	await page.getByTestId('convention-rate').press('Enter');
	await expect(page).toHaveURL(/rate=0\.05/);
	await expect.poll(() => flipValue(page)).not.toBe(perfilievFlip);
	const withRate = await flipValue(page);
	await page.screenshot({ path: 'test-results/chain-desktop.png', fullPage: true });

	// Reload: the chain is read back from this device's IndexedDB, the view from the URL.
	await page.reload();
	await expect(page.getByTestId('chain-meta')).toContainText('quotedata.csv');
	await expect.poll(() => flipValue(page)).toBe(withRate);
	await expect(page.getByTestId('convention-preset')).toHaveValue('perfiliev');

	// A broken file is refused with its line; the chain shown stays.
	const broken = QUOTES.split('\r\n');
	broken[20] = broken[20].replace(/,(\d+\.\d{4}),/, ',n/a,');
	await dropFile(page, broken.join('\r\n'), 'broken.csv');
	await expect(page.getByTestId('chain-error')).toContainText('line 21');
	await expect(page.getByTestId('chain-meta')).toContainText('quotedata.csv');

	// Nothing of the chain went to the server.
	expect(uploads).toEqual([]);
});

test.describe('on a phone', () => {
	test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

	test('a picked file is analysed and fits the screen', async ({ page }) => {
		await page.goto('/chain?w=vol&preset=perfiliev');
		await expect(page.getByTestId('chain-drop')).toHaveAttribute('data-ready', 'true');
		await page.getByTestId('chain-file').setInputFiles({
			name: 'quotedata.csv',
			mimeType: 'text/csv',
			buffer: Buffer.from(QUOTES)
		});
		await expect(page.getByTestId('flip-label')).toBeVisible();
		await expect(page.getByTestId('weight-vol')).toHaveAttribute('aria-pressed', 'true');
		await expect(page.getByTestId('conventions-stated')).toContainText('262');
		await expect(page.getByTestId('gex-panel').locator('rect.bar')).not.toHaveCount(0);
		const overflow = await page.evaluate(
			() => document.documentElement.scrollWidth - document.documentElement.clientWidth
		);
		expect(overflow).toBeLessThanOrEqual(1);
		await page.screenshot({ path: 'test-results/chain-phone.png', fullPage: true });
		await page.getByTestId('vol-surface').click();
		await expect(page.getByTestId('surface-canvas')).toBeVisible();
		await page.getByTestId('vol-panel').screenshot({ path: 'test-results/chain-surface.png' });
	});
});
