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
	// The pattern lets through names a URL parser refuses (`.0`, `1.2.3.4.5`): parse it too.
	if (!HOST.test(host) || !URL.canParse(`http://${host}`))
		throw new HttpError(400, 'Invalid Host header.');
	return `http://${host}`;
}

/**
 * Refuses (421) a Host that is a DNS name other than localhost or the public origin's host: the
 * only way a web page of another site reaches this service through the user's browser is a name
 * it controls resolving to this machine (DNS rebinding), and such a page could then negotiate
 * with a known key and take the account's stream slot. IP-literal Hosts cannot be rebound.
 */
export function requireOwnHost(req: IncomingMessage, publicOrigin: string | undefined): void {
	const host = req.headers.host;
	if (!host) return;
	const name = host.replace(/:\d{1,5}$/, '').toLowerCase();
	if (name.startsWith('[') || /^[0-9.]+$/.test(name)) return;
	if (name === 'localhost' || name.endsWith('.localhost')) return;
	if (publicOrigin && new URL(publicOrigin).hostname.toLowerCase() === name) return;
	throw new HttpError(
		421,
		'This service answers to localhost, its IP addresses or its public origin, not to this Host.'
	);
}
