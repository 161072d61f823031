/**
 * Where a request carries its integration token: `Authorization: Bearer <token>` (NinjaTrader,
 * scripts) or the `token` query parameter (Sierra Chart's GET cannot send headers; Bookmap reads
 * a plain URL). The scrubber that keeps it out of every log line lives in log.ts.
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

export { scrubTokens } from '../log';
