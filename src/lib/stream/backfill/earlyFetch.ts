/**
 * Answers a page asks for as it starts: its load function (before the page hydrates) asks for
 * the addresses its view will fetch first (a day's overview, Classic's first moment), and the
 * view's own fetch of the same address takes the answer already on its way. The same addresses
 * are preloaded from the page's head (a first load); this also covers a page opened in the app,
 * and on a first load the fetch and its decoding start ~20-40 ms before the view's effect would
 * have asked (issue 26).
 *
 * Bounded: at most EARLY_MAX answers wait, each at most EARLY_KEEP_MS (one nobody took is
 * dropped, never served late), and an answer is taken once. A load runs again when any part of
 * its link changes (Classic's moment, as the slider settles) while its view fetches nothing new:
 * the addresses are asked for once per `key` in a row (the page and its day), not again.
 */

/** Answers waiting at once (a page asks for two or three). */
export const EARLY_MAX = 8;
/** How long an answer waits to be taken. */
export const EARLY_KEEP_MS = 5_000;

interface Early {
	asked: number;
	response: Promise<Response>;
}

const waiting = new Map<string, Early>();
/** The key of the last ask. */
let lastKey: string | undefined;

/**
 * Asks for each address now (in a browser; a no-op on the server or without fetch), unless the
 * last ask had the same `key`.
 */
export function askEarly(key: string, urls: readonly string[], now = Date.now()): void {
	if (typeof window === 'undefined' || typeof fetch === 'undefined') return;
	if (key === lastKey) return;
	lastKey = key;
	drop(now);
	for (const url of urls) {
		if (waiting.has(url)) continue;
		const response = fetch(url);
		// A failure is the taker's to see (its own await); one nobody takes is not an error.
		response.catch(() => undefined);
		waiting.set(url, { asked: now, response });
		while (waiting.size > EARLY_MAX) waiting.delete(waiting.keys().next().value as string);
	}
}

/** The answer asked for early for `url`, once, if it is still fresh; else undefined. */
export function takeEarly(url: string, now = Date.now()): Promise<Response> | undefined {
	drop(now);
	const early = waiting.get(url);
	if (!early) return undefined;
	waiting.delete(url);
	return early.response;
}

/** Answers waiting now (tests). */
export function earlyCount(): number {
	return waiting.size;
}

/** Forgets every answer and the last key (tests). */
export function resetEarly(): void {
	waiting.clear();
	lastKey = undefined;
}

function drop(now: number): void {
	for (const [url, e] of waiting) if (now - e.asked > EARLY_KEEP_MS) waiting.delete(url);
}
