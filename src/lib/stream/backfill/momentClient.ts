/**
 * The page's side of GET /history/<ticker>/<stream>/moment (src/lib/relay/momentBody.ts): one
 * recorded chain as JSON, decoded on the main thread without the wire codec. Classic asks for a
 * past day's first moment (the day's last overview step) with the page, by a preload in its
 * head, and draws it as soon as the page starts; later moments come from the decode worker.
 */
import { decodeMomentBody, type Moment } from '../../relay/momentBody';
import { answerBytes } from './answerBytes';
import { takeEarly } from './earlyFetch';

/** The address of a moment: `at` (unix s), or the day's last overview step without it. */
export function momentUrl(ticker: string, stream: string, day: string, at?: number): string {
	const q = new URLSearchParams({ day });
	if (at !== undefined) q.set('at', String(at));
	return `/history/${encodeURIComponent(ticker)}/${encodeURIComponent(stream)}/moment?${q}`;
}

/** The moment, or undefined when the server has none there (the worker then reads it). */
export async function fetchMoment(
	ticker: string,
	stream: string,
	day: string,
	signal?: AbortSignal
): Promise<Moment | undefined> {
	const url = momentUrl(ticker, stream, day);
	return momentOf(await (takeEarly(url) ?? fetch(url, { signal })));
}

/** A moment answer read: undefined when it is not one (404: nothing recorded there). */
export async function momentOf(res: Response): Promise<Moment | undefined> {
	if (!res.ok) return undefined;
	return decodeMomentBody(new TextDecoder().decode(await answerBytes(res)));
}
