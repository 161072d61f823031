/**
 * Reaching a webhook safely: the host is resolved, every address it resolves to is checked
 * (addressPolicy.ts), and the request connects to the address that was checked (a custom
 * `lookup` hands the socket that very address, so a DNS answer that changes between the check
 * and the connect cannot slip through). Host header and TLS SNI stay the URL's host name.
 *
 * Failures are reported as categories ("refused", "timed out", "HTTP 500", "blocked address",
 * "TLS error"), never with the address or port, so the rules page is no port scanner.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { allowed, blockedReason, literalAddress, type AllowList } from './addressPolicy';

export interface ResolvedAddress {
	address: string;
	family: number;
}

/** Every address of a host name (dns.lookup with all: true, the resolver the OS uses). */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

/** A delivery failure in words the page may show: a category, no address, no port. */
export class WebhookError extends Error {
	constructor(
		readonly category: string,
		readonly retryable: boolean
	) {
		super(category);
	}
}

/**
 * The address a webhook URL may be reached at: its host resolved, every address public (or
 * allowed); throws a WebhookError ("blocked address", "name not resolved") otherwise.
 */
export async function resolveTarget(
	url: URL,
	allow: AllowList,
	resolve: Resolver = systemResolver
): Promise<ResolvedAddress> {
	// An IPv6 literal keeps its brackets: literalAddress takes them off, and only a name (never
	// bracketed) reaches the resolver or the allowlist's names.
	const host = url.hostname;
	const lit = literalAddress(host);
	let addresses: ResolvedAddress[];
	if (lit) addresses = [lit];
	else {
		try {
			addresses = await resolve(host);
		} catch {
			throw new WebhookError('name not resolved', true);
		}
	}
	if (addresses.length === 0) throw new WebhookError('name not resolved', true);
	// One bad address is enough: the OS may pick any of them.
	for (const a of addresses) {
		if (blockedReason(a.address) && !allowed(allow, host, a.address)) {
			throw new WebhookError('blocked address', false);
		}
	}
	return addresses[0];
}

/** A lookup that answers only `target`, whatever name it is asked about. */
function pinnedLookup(target: ResolvedAddress): LookupFunction {
	return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
		const family = target.family === 6 ? 6 : 4;
		if (options?.all) callback(null, [{ address: target.address, family }]);
		else callback(null, target.address, family);
	}) as unknown as LookupFunction;
}

const TLS_CODES =
	/^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|EPROTO$)/;

/** The category of a socket or TLS error. */
export function errorCategory(e: unknown): WebhookError {
	if (e instanceof WebhookError) return e;
	const code = String((e as NodeJS.ErrnoException)?.code ?? '');
	if (code === 'ECONNREFUSED') return new WebhookError('refused', true);
	if (code === 'ETIMEDOUT' || code === 'ABORT_ERR') return new WebhookError('timed out', true);
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
		return new WebhookError('name not resolved', true);
	if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EADDRNOTAVAIL')
		return new WebhookError('unreachable', true);
	if (code === 'ECONNRESET' || code === 'EPIPE') return new WebhookError('connection reset', true);
	if (TLS_CODES.test(code)) return new WebhookError('TLS error', true);
	return new WebhookError('failed', true);
}

export interface PostOptions {
	headers: Record<string, string>;
	body: string;
	timeoutMs: number;
	allow: AllowList;
	resolve?: Resolver;
}

/**
 * POSTs `body` to `url` at its checked address; resolves with the HTTP status (the response
 * body is not read). Redirects are not followed (a 3xx is just a status). Rejects with a
 * WebhookError.
 */
export async function postWebhook(url: URL, o: PostOptions): Promise<number> {
	const target = await resolveTarget(url, o.allow, o.resolve);
	const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
	return new Promise<number>((resolve, reject) => {
		let settled = false;
		const finish = (fn: () => void) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			fn();
		};
		const req = request(
			url,
			{
				method: 'POST',
				headers: { ...o.headers, 'content-length': Buffer.byteLength(o.body) },
				lookup: pinnedLookup(target),
				agent: false
			},
			(res: IncomingMessage) => {
				// The status is all that counts: drop the body and the connection.
				res.destroy();
				finish(() => resolve(res.statusCode ?? 0));
			}
		);
		const timer = setTimeout(() => {
			req.destroy();
			finish(() => reject(new WebhookError('timed out', true)));
		}, o.timeoutMs);
		timer.unref?.();
		req.on('error', (e) => finish(() => reject(errorCategory(e))));
		req.end(o.body);
	});
}
