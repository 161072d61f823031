/**
 * Pre-signed download URLs for history files, like the object-store links the upstream
 * redirects to: the path and an expiry time are signed with HMAC-SHA256 under a secret of this
 * process, so a link works without an API key until it expires and cannot be altered.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface SignedQuery {
	expires: number;
	signature: string;
}

export class UrlSigner {
	private readonly secret: Buffer;

	constructor(
		secret: Buffer = randomBytes(32),
		/** Lifetime of a link in seconds. */
		readonly ttlSeconds = 900,
		private readonly wallClock: () => number = Date.now
	) {
		this.secret = secret;
	}

	private mac(path: string, expires: number): string {
		return createHmac('sha256', this.secret).update(`${path}\n${expires}`).digest('base64url');
	}

	/** Query string (`expires=...&signature=...`) authorising GET `path` until the expiry. */
	sign(path: string): string {
		const expires = Math.floor(this.wallClock() / 1000) + this.ttlSeconds;
		return `expires=${expires}&signature=${this.mac(path, expires)}`;
	}

	/** 'ok', or why the link is refused. */
	verify(path: string, query: URLSearchParams): 'ok' | 'invalid' | 'expired' {
		const expires = Number(query.get('expires'));
		const signature = query.get('signature') ?? '';
		if (!Number.isInteger(expires)) return 'invalid';
		const expected = Buffer.from(this.mac(path, expires));
		const given = Buffer.from(signature);
		if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
		if (expires * 1000 < this.wallClock()) return 'expired';
		return 'ok';
	}
}
