/**
 * A past day's Classic view drawn in the page's HTML (issue 26). The view's load asks for what it
 * draws first, the day's lines by both metrics and the chain of the step it opens at (the last, or
 * the one nearest the link's `at`: a shared moment), with SvelteKit's fetch. On the server that
 * fetch calls the /history routes in-process, the page is rendered with the day on it (histogram,
 * slider, figures: on screen at the first paint, before any script has run), and the answers are
 * inlined in the page, where the same load replays them as the page hydrates, so the browser
 * renders what the server did without asking again. After the app has started, loads ask nothing
 * here: a day picked in the app is fetched by the view (earlyFetch.ts, overviewClient). Only an
 * overview already built is read (`ready=1`): a day whose overview must first be built from its
 * raw records (seconds) is rendered as before, the view saying it is loading.
 */
import type { Moment } from '../../relay/momentBody';
import { nearestFrame } from './replayTimeline';
import { momentOf, momentUrl } from './momentClient';
import { overviewOf, overviewUrl, type OverviewResult } from './overviewClient';

export interface DaySeed {
	ticker: string;
	stream: string;
	day: string;
	/** The day's lines (no strikes) by volume and by open interest. */
	vol: OverviewResult;
	oi: OverviewResult;
	/** The link's moment (unix s), null for the day's end. */
	at: number | null;
	/** The chain at the step the view opens at (the last, or the one nearest `at`). */
	moment: Moment;
}

/**
 * The addresses a seed is read from, in the order fetchDaySeed asks them: the lines, then the
 * moment at `step` (the last step without one).
 */
export function daySeedUrls(ticker: string, stream: string, day: string, step?: number): string[] {
	return [
		overviewUrl(ticker, stream, day, 'vol', { cells: false, ready: true }),
		overviewUrl(ticker, stream, day, 'oi', { cells: false, ready: true }),
		momentUrl(ticker, stream, day, step)
	];
}

/**
 * The day's seed, or undefined when any part of it is missing (a day without an overview here:
 * the view then reads it the way it always did) or unreadable.
 */
export async function fetchDaySeed(
	fetch: typeof globalThis.fetch,
	ticker: string,
	stream: string,
	day: string,
	at: number | null = null
): Promise<DaySeed | undefined> {
	const [volUrl, oiUrl] = daySeedUrls(ticker, stream, day);
	try {
		// The lines first: an overview not built yet is a 404 at once, and then the moment (whose
		// answer would build it) is not asked: the view opens the day as it always did.
		const [vol, oi] = await Promise.all([
			fetch(volUrl).then(overviewOf),
			fetch(oiUrl).then(overviewOf)
		]);
		if (!vol || !oi || vol.header.day !== day || vol.times.length === 0) return undefined;
		// The step the replay shows for the link (its nearestFrame over the same steps).
		const steps = Array.from(vol.times, (timestamp) => ({ timestamp }));
		const step = at === null ? steps.length - 1 : nearestFrame(steps, at);
		const momentAt = momentUrl(
			ticker,
			stream,
			day,
			at === null ? undefined : steps[step].timestamp
		);
		const moment = await fetch(momentAt).then(momentOf);
		if (!moment || moment.at !== steps[step].timestamp) return undefined;
		return { ticker, stream, day, vol, oi, at, moment };
	} catch {
		return undefined;
	}
}
