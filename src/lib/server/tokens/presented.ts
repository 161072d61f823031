/**
 * Where a request carries its integration token: `Authorization: Bearer <token>` (NinjaTrader,
 * scripts) or the `token` query parameter (Sierra Chart's GET cannot send headers; Bookmap reads
 * a plain URL). And the one scrubber that keeps it out of every log line.
 */
import type { IncomingMessage } from 'node:http';

export function presentedToken(req: IncomingMessage, query: URLSearchParams): string | undefined {
	const auth = req.headers.authorization;
	if (auth) {
		const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
		if (m) return m[1];
	}
	return query.get('token') ?? undefined;
}

/** `text` with every token value replaced: `token=...` in URLs, Bearer values, `gxd_` tokens. */
export function scrubTokens(text: string): string {
	return text
		.replace(/([?&;]token=)[^&\s"'#]*/gi, '$1[redacted]')
		.replace(/(Bearer\s+)\S+/gi, '$1[redacted]')
		.replace(/gxd_[A-Za-z0-9_-]+/g, 'gxd_[redacted]');
}
