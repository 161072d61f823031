/**
 * The newest recorded day's overview answers, made once when the dashboard starts: the first
 * whole-day view opened after a start then finds its answer made (dayOverviews.ts made())
 * instead of waiting 60-90 ms of CPU for the rows to be read, decoded, encoded and compressed
 * (`npm run bench -- overview`, the cold first answer). One answer per timer turn, so requests
 * arriving meanwhile wait for one answer at most; bounded to WARM_STREAMS_MAX streams of one day
 * (a full day's heatmap answer is ~0.5 MB, its line answers ~5 KB).
 */
import { log } from '../log';
import type { SessionRecorder } from '../recorder/sessionRecorder';
import { hasFlowOverview } from './flowOverviewRow';
import { overviewResponse } from './overviewResponse';
import { hasOverview } from './overviewRow';

/** At most this many streams of the newest day are warmed (SPX's first). */
export const WARM_STREAMS_MAX = 8;

/** What the whole-day views ask first: the heatmap's cells, the lines by volume and by OI. */
const CHAIN_VARIANTS = ['metric=vol', 'metric=vol&cells=none', 'metric=oi&cells=none'];

/** The queries to make for the newest recorded day, in the order they are made. */
export function warmupPlan(recorder: SessionRecorder): [string, string, string][] {
	const day = recorder.days().at(-1);
	if (day === undefined) return [];
	const tickers = recorder.tickers(day).sort((a, b) => Number(b === 'SPX') - Number(a === 'SPX'));
	const plan: [string, string, string][] = [];
	let streams = 0;
	for (const ticker of tickers) {
		for (const stream of recorder.streams(day, ticker)) {
			const variants = hasFlowOverview(ticker, stream)
				? ['']
				: hasOverview(ticker, stream)
					? CHAIN_VARIANTS
					: [];
			if (variants.length === 0) continue;
			if (++streams > WARM_STREAMS_MAX) return plan;
			for (const v of variants) plan.push([ticker, stream, `day=${day}${v ? `&${v}` : ''}`]);
		}
	}
	return plan;
}

/**
 * Makes the plan's answers, one per timer turn; resolves with how many were made (a stopped or
 * failed one ends the warm-up: it is only a head start, the routes make them when asked).
 */
export function warmNewestOverviews(
	recorder: SessionRecorder,
	stopped: () => boolean = () => false
): Promise<number> {
	const plan = warmupPlan(recorder);
	return new Promise((resolve) => {
		let made = 0;
		const next = () => {
			const item = plan[made];
			if (!item || stopped()) return resolve(made);
			try {
				overviewResponse(recorder, item[0], item[1], new URLSearchParams(item[2]));
			} catch (err) {
				log.warn('overview warm-up stopped', { error: (err as Error).message });
				return resolve(made);
			}
			made++;
			setTimeout(next, 0).unref?.();
		};
		setTimeout(next, 0).unref?.();
	});
}
