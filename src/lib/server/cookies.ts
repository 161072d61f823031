/**
 * The dashboard's one cookie parser (request gate, /api fast path, /stream upgrade). It never
 * throws: a malformed percent-encoding (`gexdeck_session=%`) keeps its raw text, which simply
 * matches no session, instead of a URIError that used to kill the process.
 */

/** Cookies of a `Cookie` header; the first occurrence of a name wins (like browsers send them). */
export function parseCookies(header: string | string[] | null | undefined): Map<string, string> {
	const out = new Map<string, string>();
	const text = Array.isArray(header) ? header.join('; ') : header;
	if (typeof text !== 'string' || text === '') return out;
	for (const part of text.split(';')) {
		const eq = part.indexOf('=');
		if (eq <= 0) continue;
		const name = part.slice(0, eq).trim();
		if (!name || out.has(name)) continue;
		let value = part.slice(eq + 1).trim();
		if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
			value = value.slice(1, -1);
		}
		out.set(name, safeDecode(value));
	}
	return out;
}

/** One cookie of a `Cookie` header, or undefined. */
export function cookieValue(
	header: string | string[] | null | undefined,
	name: string
): string | undefined {
	return parseCookies(header).get(name);
}

function safeDecode(value: string): string {
	if (!value.includes('%')) return value;
	try {
		return decodeURIComponent(value);
	} catch {
		return value;
	}
}
