import { expect, test, type Page } from '@playwright/test';
import { freshness } from '../../src/lib/contract/freshness';

/**
 * Issue 25 item 1: every live view says what its data is. The embedded service is a simulated
 * market that replays the last session outside market hours: there the badge must read "Replay
 * of <day> (simulated market)", never Live; in market hours it reads Live. The expected words
 * come from the one pure decision (contract/freshness.ts) applied to the data's own timestamp,
 * so the test holds at any hour.
 */

const VIEWS: [string, string][] = [
	['/SPX/classic/gex_full', 'SPX/classic/gex_full'],
	['/SPX/state/gex_full', 'SPX/state/gex_full'],
	['/SPX/orderflow', 'SPX/orderflow/orderflow'],
	['/levels/SPX', 'SPX/classic/gex_full'],
	['/SPX/heatmap/gex_full', 'SPX/classic/gex_full'],
	['/watchlist?t=SPX', 'SPX/classic/gex_full']
];

async function expectHonestBadge(page: Page, path: string, route: string) {
	await page.goto(path);
	const badge = page.getByTestId('freshness');
	await expect(badge).toBeVisible({ timeout: 30_000 });
	const { timestamp } = (await (await page.request.get(`/api/${route}`)).json()) as {
		timestamp: number;
	};
	const expected = freshness({ dataTimestamp: timestamp, now: Date.now(), simulated: true });
	await expect(badge, path).toHaveAttribute('data-session', expected.session);
	if (expected.live) {
		await expect(badge, path).toHaveAttribute('data-kind', 'live');
		await expect(badge).toHaveText(/^● Live/);
		return;
	}
	await expect(badge, path).toHaveAttribute('data-kind', expected.kind);
	await expect(badge, path).toHaveText(expected.text);
	// Nothing else on the page calls the data live: not the feed badge, not the day picker.
	await expect(page.getByTestId('feed-mode')).not.toContainText(/●|live/i);
	const liveWords = await page.locator('body').innerText();
	expect(liveWords, path).not.toMatch(/● Live|\bLIVE\b|Today \(live\)/);
}

for (const [name, viewport] of [
	['desktop', { width: 1280, height: 900 }],
	['phone', { width: 390, height: 844 }]
] as const) {
	test.describe(name, () => {
		test.use({ viewport });
		for (const [path, route] of VIEWS) {
			test(`${path} labels its data by its session, not the service's market-open claim`, async ({
				page
			}) => {
				await expectHonestBadge(page, path, route);
				const slug = path.replace(/[^a-z]+/gi, '-').replace(/^-|-$/g, '');
				await page.screenshot({ path: `test-results/freshness-${name}-${slug}.png` });
			});
		}
	});
}
