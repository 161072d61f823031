import { expect, test } from '@playwright/test';
import { freshness } from '../../src/lib/contract/freshness';

/**
 * Issue 26 item 6: a fresh install outside market hours shows the heatmap of the replayed (or
 * last) session so far and says where the full day is: a link that opens that day on the day
 * picker. In market hours the latest is today's live session and no such note is shown. What
 * to expect comes from the one pure decision (contract/freshness.ts) on the newest column's own
 * timestamp, so the test holds at any hour.
 */
test('outside market hours the live heatmap links the full day on the day picker', async ({
	page
}) => {
	await page.goto('/SPX/heatmap/gex_full');
	await expect(page.getByTestId('heatmap')).toBeVisible({ timeout: 45_000 });
	const badge = page.getByTestId('freshness');
	await expect(badge).toBeVisible({ timeout: 30_000 });
	const { timestamp } = (await (await page.request.get('/api/SPX/classic/gex_full')).json()) as {
		timestamp: number;
	};
	const expected = freshness({ dataTimestamp: timestamp, now: Date.now(), simulated: true });
	const note = page.getByTestId('full-day-note');
	if (expected.kind !== 'replay' && expected.kind !== 'closed') {
		await expect(note).toHaveCount(0);
		return;
	}
	// The replayed session so far is drawn (columns from the recording), and the note says so.
	await expect
		.poll(async () => Number(await page.getByTestId('heatmap').getAttribute('data-columns')))
		.toBeGreaterThan(0);
	await expect(note).toContainText('Outside market hours');
	const link = page.getByTestId('full-day-link');
	await expect(link).toHaveText(`${expected.session} on the day picker`);
	await expect(link).toHaveAttribute('href', new RegExp(`[?&]day=${expected.session}\\b`));
	await page.screenshot({ path: 'test-results/heatmap-full-day-note.png' });
	await link.click();
	await expect(page).toHaveURL(new RegExp(`[?&]day=${expected.session}\\b`));
	await expect(page.getByTestId('day-picker')).toHaveValue(expected.session);
	// The past day's view: no live note, the day loading or drawn.
	await expect(note).toHaveCount(0);
});
