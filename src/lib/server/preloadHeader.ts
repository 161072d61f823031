/**
 * A page's data preloads, first in its Link header. A whole-day view asks for its overview with
 * `<link rel="preload" as="fetch">` in its head, but SvelteKit announces the page's ~60 scripts
 * and styles in the Link header, which the browser reads before the body: the overview then
 * queued behind them for 100-250 ms on the six connections of HTTP/1.1 (issue 26). Moved to the
 * front of the header, the overview is the first request on the wire after the document.
 */

const ENTITIES: Record<string, string> = { amp: '&', quot: '"', '#39': "'", lt: '<', gt: '>' };
const unescapeAttribute = (v: string) =>
	v.replace(/&(amp|quot|#39|lt|gt);/g, (_, e) => ENTITIES[e]);

/** What a URI reference in a Link header may hold as it is (RFC 3986's characters). */
const URI_REFERENCE = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;

/** The href of every `<link rel="preload" as="fetch" ...>` in a page's HTML, in order. */
export function fetchPreloads(html: string): string[] {
	const head = html.slice(0, Math.max(0, html.indexOf('</head>')));
	const out: string[] = [];
	for (const tag of head.matchAll(/<link\b[^>]*>/g)) {
		const t = tag[0];
		if (!/\brel="preload"/.test(t) || !/\bas="fetch"/.test(t)) continue;
		const href = /\bhref="([^"]*)"/.exec(t)?.[1];
		if (href) out.push(unescapeAttribute(href));
	}
	return out;
}

/** A Link header with `hrefs` as fetch preloads before what `link` already announces. */
export function withFetchPreloads(link: string | null, hrefs: readonly string[]): string | null {
	// Only what a URI reference holds as it is: no CR/LF, no '>' ending it early, no quotes.
	const safe = hrefs.filter((h) => URI_REFERENCE.test(h));
	if (safe.length === 0) return link;
	const preloads = safe.map((h) => `<${h}>; rel="preload"; as="fetch"; crossorigin`);
	return [...preloads, ...(link ? [link] : [])].join(', ');
}
