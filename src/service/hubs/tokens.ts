/**
 * Signed access tokens of the negotiated WebSocket URLs.
 *
 * A token names the account, its session slot, the hub it opens and the negotiation (session)
 * that issued it, and carries its own expiry. It is `base64url(JSON claims).base64url(HMAC)`:
 * the service keeps no table of issued URLs, and a token signed with another secret (another
 * service instance) or edited in any byte fails the HMAC check. Expiry is judged only when a
 * connection is made: a connected socket is not cut when its URL ages past 15 minutes.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { URL_TTL_MS } from '../../lib/contract/hubs';
import type { SlotKind } from '../../lib/contract/keys';

/** How long a negotiated URL may wait for its connection (15 minutes). */
export const URL_CONNECT_WINDOW_MS = URL_TTL_MS;

export interface AccessClaims {
	/** Account `_id`. */
	account: string;
	slot: SlotKind;
	/** Hub name exactly as in the URL path (`v2_classic`, or a legacy name such as `classic`). */
	hub: string;
	/** Id of the negotiation that issued the URL; a later negotiation on the slot supersedes it. */
	session: string;
	/** Unix ms after which the URL can no longer be connected. */
	exp: number;
}

export type TokenCheck =
	| { ok: true; claims: AccessClaims }
	| { ok: false; reason: 'malformed' | 'signature' | 'expired' | 'hub' };

export class AccessTokens {
	private readonly secret: Buffer;

	constructor(
		secret: Buffer | string = randomBytes(32),
		private readonly now: () => number = Date.now,
		readonly ttlMs: number = URL_CONNECT_WINDOW_MS
	) {
		this.secret = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
		if (this.secret.length < 16) throw new RangeError('access token secret must be >= 16 bytes');
	}

	issue(claims: Omit<AccessClaims, 'exp'>): string {
		const full: AccessClaims = { ...claims, exp: this.now() + this.ttlMs };
		const body = Buffer.from(JSON.stringify(full), 'utf8').toString('base64url');
		return `${body}.${this.sign(body)}`;
	}

	/** Checks a token presented on `hub` at connect time. */
	verify(token: string, hub: string): TokenCheck {
		if (typeof token !== 'string') return { ok: false, reason: 'malformed' };
		const dot = token.indexOf('.');
		if (dot <= 0 || dot !== token.lastIndexOf('.')) return { ok: false, reason: 'malformed' };
		const body = token.slice(0, dot);
		const given = Buffer.from(token.slice(dot + 1), 'base64url');
		const expected = Buffer.from(this.sign(body), 'base64url');
		if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
			return { ok: false, reason: 'signature' };
		}
		let claims: AccessClaims;
		try {
			claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as AccessClaims;
		} catch {
			return { ok: false, reason: 'malformed' };
		}
		if (!isClaims(claims)) return { ok: false, reason: 'malformed' };
		if (claims.hub !== hub) return { ok: false, reason: 'hub' };
		if (this.now() > claims.exp) return { ok: false, reason: 'expired' };
		return { ok: true, claims };
	}

	private sign(body: string): string {
		return createHmac('sha256', this.secret).update(body).digest('base64url');
	}
}

function isClaims(v: unknown): v is AccessClaims {
	if (typeof v !== 'object' || v === null) return false;
	const c = v as Record<string, unknown>;
	return (
		typeof c.account === 'string' &&
		(c.slot === 'custom' || c.slot === 'platform') &&
		typeof c.hub === 'string' &&
		typeof c.session === 'string' &&
		typeof c.exp === 'number' &&
		Number.isFinite(c.exp)
	);
}

/** Human text for a refused token, as the upgrade answers it. */
export function tokenRefusal(reason: Exclude<TokenCheck, { ok: true }>['reason']): string {
	switch (reason) {
		case 'malformed':
			return 'Malformed access token.';
		case 'signature':
			return 'Invalid access token signature.';
		case 'expired':
			return 'Access token expired: negotiated URLs must be connected within 15 minutes.';
		case 'hub':
			return 'Access token was issued for another hub.';
	}
}
