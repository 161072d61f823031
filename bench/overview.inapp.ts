/**
 * The overview bench's in-app navigation (bench/overview.bench.ts): a whole-day view opened the
 * way a trader switches day inside the dashboard, its scripts already running. The view's live
 * page is loaded first (`livePath`, no day), then the day is picked in its day picker (a
 * client-side navigation); measured from the pick to the first animation frame with every step
 * drawn, with the long tasks that started after the pick up to the page settling
 * (settledLongTasks).
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
	return { drawnMs: drawn - t0, longTasks: await settledLongTasks(page, t0) };
}

/** How long the page must run without a long task to count as settled. */
const QUIET_MS = 500;

/**
 * The long tasks that started after `from` (page clock), read once the page has settled: no long
 * task for QUIET_MS since it was drawn (10 s at most). A view drawn is not a view done: what it
 * puts off to later tasks (a chart mounted after the first paint, the decode worker's start-up)
 * runs after the drawn frame, and a task over 50 ms there is as much the load's as one before
 * it. Kept by the bench's init script (a PerformanceObserver: long tasks are not in the timeline).
 */
export async function settledLongTasks(page: Page, from: number): Promise<number[]> {
	const read = () =>
		page.evaluate(
			(since) => ({
				now: performance.now(),
				tasks: (
					window as unknown as { __longTasks: { start: number; duration: number }[] }
				).__longTasks.filter((t) => t.start >= since)
			}),
			from
		);
	const until = Date.now() + 10_000;
	let seen = await read();
	// Quiet from now (the view drawn) at the earliest: a task still to come counts.
	const drawnAt = seen.now;
	for (;;) {
		const last = seen.tasks.at(-1);
		const quietSince = Math.max(drawnAt, last ? last.start + last.duration : 0);
		if (seen.now - quietSince >= QUIET_MS || Date.now() > until) break;
		await page.waitForTimeout(QUIET_MS - (seen.now - quietSince));
		seen = await read();
	}
	return seen.tasks.map((t) => t.duration);
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
