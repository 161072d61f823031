import { expect, test, type Page } from '@playwright/test';
import { useDemoAccount } from './demoAccount';

/**
 * Scrubbing back through the recorded session of the Classic view, on the streaming Quant demo
 * account (the default account of the e2e server, as in stream.spec.ts). The decode worker
 * records every streamed chain into the IndexedDB ring; a snapshot (strike ladder) is kept
 * every 5 s of data.
 */

async function openStreaming(page: Page) {
	await page.goto('/SPX/classic/gex_full');
	await expect(page.getByTestId('feed-mode')).toHaveAttribute('data-mode', 'stream', {
		timeout: 30_000
	});
}

/**
 * The data time Classic shows, once its chart is of the replayed moment (a moment of the day's
 * overview is one record read when scrubbed to; the chart holds the one before meanwhile).
 */
async function shownTimestamp(page: Page): Promise<number> {
	const replay = page.getByTestId('replay');
	await expect
		.poll(async () => {
			const at = await replay.getAttribute('data-at');
			return (
				at === '' || at === (await page.locator('.charts').first().getAttribute('data-moment'))
			);
		})
		.toBe(true);
	return Number(await page.getByTestId('timestamp').getAttribute('data-unix'));
}

/** Waits until the timeline holds at least `n` recorded snapshots; returns how many. */
async function waitForSnapshots(page: Page, n: number): Promise<number> {
	const slider = page.getByTestId('replay-slider');
	await expect
		.poll(async () => Number(await slider.getAttribute('max')), { timeout: 40_000 })
		.toBeGreaterThanOrEqual(n);
	return Number(await slider.getAttribute('max'));
}

test('the bar names the session as the freshness badge does: today, or its day', async ({
	page
}) => {
	test.setTimeout(90_000);
	await openStreaming(page);
	await waitForSnapshots(page, 1);
	const badge = page.getByTestId('freshness');
	const kind = await badge.getAttribute('data-kind');
	const bar = page.getByTestId('replay');
	const slider = page.getByTestId('replay-slider');
	if (kind === 'live' || kind === 'delayed') {
		await expect(bar).toContainText('Recorded today');
		await expect(slider).toHaveAttribute('aria-label', "Replay today's recorded session");
	} else {
		// A replay of the simulated market, or the last session: its day, never "today".
		const day = /(\w{3} \w{3} \d{1,2})/.exec(await badge.innerText())![1];
		await expect(bar).toContainText(`Recorded on ${day}`);
		await expect(bar).not.toContainText('today');
		await expect(slider).toHaveAttribute('aria-label', `Replay the recorded session of ${day}`);
	}
});

test('scrub back by keyboard, the chart holds the recorded moment, Live resumes, a reload keeps the frames', async ({
	page
}) => {
	test.setTimeout(120_000);
	await openStreaming(page);
	await waitForSnapshots(page, 3);
	await expect(page.getByTestId('replay')).toHaveAttribute('data-mode', 'live');

	// Two snapshots back from the live edge, by keyboard.
	const slider = page.getByTestId('replay-slider');
	await slider.focus();
	const liveBefore = await shownTimestamp(page);
	await page.keyboard.press('ArrowLeft');
	await page.keyboard.press('ArrowLeft');
	await expect(page.getByTestId('replay')).toHaveAttribute('data-mode', 'replay');
	await expect(page.getByTestId('replay-state')).toHaveText(/replay/i);
	const replayed = await shownTimestamp(page);
	expect(replayed).toBeLessThan(liveBefore);
	// The label is the same moment in New York time, and the slider says it too.
	const label = await page.getByTestId('replay-time').innerText();
	expect(label).toMatch(/^\d{2}:\d{2}:\d{2} ET$/);
	expect(await page.getByTestId('timestamp').innerText()).toContain(label.replace(' ET', ''));
	await expect(slider).toHaveAttribute(
		'aria-valuetext',
		new RegExp(`^${label}, .+ behind the latest$`)
	);
	await page.screenshot({ path: 'test-results/replay-scrubbed.png', fullPage: true });

	// Live updates keep arriving (and being recorded) but the chart stays on the replayed moment.
	const snapshotsBefore = Number(await slider.getAttribute('max'));
	await expect
		.poll(async () => Number(await slider.getAttribute('max')), { timeout: 20_000 })
		.toBeGreaterThan(snapshotsBefore);
	expect(await shownTimestamp(page)).toBe(replayed);
	await expect(page.getByTestId('feed-mode')).toHaveAttribute('data-mode', 'stream');

	// Home goes to the oldest snapshot of the session.
	await page.keyboard.press('Home');
	const oldest = await shownTimestamp(page);
	expect(oldest).toBeLessThanOrEqual(replayed);

	// Live: back at the edge, and the data time advances again.
	await page.getByTestId('replay-live').click();
	await expect(page.getByTestId('replay')).toHaveAttribute('data-mode', 'live');
	const atLive = await shownTimestamp(page);
	expect(atLive).toBeGreaterThan(replayed);
	await expect.poll(() => shownTimestamp(page), { timeout: 10_000 }).toBeGreaterThan(atLive);

	// A reload reads the ring back: the oldest snapshot seen before is still there.
	await page.reload();
	await expect(page.getByTestId('feed-mode')).toHaveAttribute('data-mode', 'stream', {
		timeout: 30_000
	});
	await waitForSnapshots(page, snapshotsBefore);
	await slider.focus();
	await page.keyboard.press('Home');
	await expect(page.getByTestId('replay')).toHaveAttribute('data-mode', 'replay');
	// The timeline also holds what the server recorded before this tab opened, so the oldest
	// snapshot may now be earlier than the one seen before.
	expect(await shownTimestamp(page)).toBeLessThanOrEqual(oldest);
	// End returns to live as well.
	await page.keyboard.press('End');
	await expect(page.getByTestId('replay')).toHaveAttribute('data-mode', 'live');
});

test('an account without streaming records its polled chains into the same timeline', async ({
	page
}) => {
	test.setTimeout(120_000);
	try {
		await useDemoAccount(page, 'demo-classic');
		await page.goto('/SPX/classic/gex_full');
		await expect(page.getByTestId('feed-mode')).toHaveAttribute('data-mode', 'polling');
		await waitForSnapshots(page, 2);
		const live = await shownTimestamp(page);
		await page.getByTestId('replay-slider').focus();
		await page.keyboard.press('ArrowLeft');
		await page.keyboard.press('ArrowLeft');
		await expect(page.getByTestId('replay')).toHaveAttribute('data-mode', 'replay');
		expect(await shownTimestamp(page)).toBeLessThan(live);
		await page.keyboard.press('Escape');
		await expect(page.getByTestId('replay')).toHaveAttribute('data-mode', 'live');
	} finally {
		await useDemoAccount(page, 'demo-research');
	}
});
