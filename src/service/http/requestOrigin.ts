/**
 * The origin this service is reached at, for the absolute URLs it hands out (history download
 * links, hub WebSocket URLs): the configured public origin, else the request's Host header. A
 * Host that is not a plain `name[:port]` (control characters, spaces, slashes, `@`) is the
 * client's error, answered 400: echoed into a Location or a URL it would break the answer.
 */
import type { IncomingMessage } from 'node:http';
import { HttpError } from './respond';

/** A host name, IPv4 address or bracketed IPv6 address with an optional port. */
const HOST = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

export function requestOrigin(req: IncomingMessage, publicOrigin: string | undefined): string {
	if (publicOrigin) return publicOrigin;
	const host = req.headers.host;
	if (host === undefined || host === '') return 'http://localhost';
	if (!HOST.test(host)) throw new HttpError(400, 'Invalid Host header.');
	return `http://${host}`;
}
