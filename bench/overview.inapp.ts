/**
 * The overview bench's in-app navigation (bench/overview.bench.ts): a whole-day view opened the
 * way a trader switches day inside the dashboard, its scripts already running. The view's live
 * page is loaded first (`livePath`, no day), then the day is picked in its day picker (a
 * client-side navigation); measured from the pick to the first animation frame with every step
 * drawn, with the long tasks that started after the pick.
 */
import type { Page } from '@playwright/test';

export interface ReadyCheck {
	checks: { selector: string; attr: string; min: number }[];
	present?: string;
}

export interface InAppRun {
	drawnMs: number;
	longTasks: number[];
}

export async function pickDayDrawn(
	page: Page,
	base: string,
	livePath: string,
	day: string,
	ready: ReadyCheck
): Promise<InAppRun> {
	await page.goto(`${base}${livePath}`, { timeout: 120_000 });
	const picker = page.getByTestId('day-picker');
	await picker.locator(`option[value="${day}"]`).waitFor({ state: 'attached', timeout: 60_000 });
	// Settled: the live page's own loading is not part of the pick.
	await page.waitForTimeout(1_000);
	const t0 = (await page.evaluate(() => performance.now())) as number;
	await picker.selectOption(day);
	const drawn = await drawnIn(page, ready);
	// Kept by the bench's init script (a PerformanceObserver: long tasks are not in the timeline).
	const longTasks = await page.evaluate(
		(from) =>
			(window as unknown as { __longTasks: { start: number; duration: number }[] }).__longTasks
				.filter((t) => t.start >= from)
				.map((t) => t.duration),
		t0
	);
	return { drawnMs: drawn - t0, longTasks };
}

/** The page's clock at the first animation frame with every step drawn. */
export async function drawnIn(page: Page, ready: ReadyCheck): Promise<number> {
	return (await (
		await page.waitForFunction(
			({ checks, present }) =>
				checks.every(
					(c) => Number(document.querySelector(c.selector)?.getAttribute(c.attr)) >= c.min
				) &&
				(!present || !!document.querySelector(present)) &&
				performance.now(),
			ready,
			{ timeout: 120_000, polling: 'raf' }
		)
	).jsonValue()) as number;
}
