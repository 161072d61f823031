/**
 * Dashboard access: a password is required when one is configured (and always when bound to a
 * non-loopback address). Sessions are random tokens held in memory (a restart logs everyone out),
 * carried in an httpOnly SameSite=Strict cookie. Failed logins are rate limited per client.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'gexdeck_session';
export const SESSION_TTL_MS = 12 * 60 * 60_000;

const sessions = new Map<string, number>();

export function passwordMatches(given: string, expected: string): boolean {
	// Hash both so the comparison is constant-time whatever the lengths.
	const a = createHash('sha256').update(given).digest();
	const b = createHash('sha256').update(expected).digest();
	return timingSafeEqual(a, b);
}

export function createSession(now = Date.now()): string {
	const token = randomBytes(32).toString('base64url');
	sessions.set(token, now + SESSION_TTL_MS);
	return token;
}

export function sessionValid(token: string | undefined, now = Date.now()): boolean {
	if (!token) return false;
	const expires = sessions.get(token);
	if (expires === undefined) return false;
	if (expires <= now) {
		sessions.delete(token);
		return false;
	}
	return true;
}

export function endSession(token: string | undefined): void {
	if (token) sessions.delete(token);
}

/**
 * Login attempts per client: 5 free failures, then each further failure doubles a lockout
 * (2 s, 4 s, ... capped at 15 min). A success clears the record.
 */
export class LoginThrottle {
	private readonly failures = new Map<string, { count: number; lockedUntil: number }>();

	constructor(
		private readonly freeAttempts = 5,
		private readonly now: () => number = Date.now
	) {}

	/** Milliseconds the client must still wait, 0 when it may try. */
	waitMs(client: string): number {
		const f = this.failures.get(client);
		return f ? Math.max(0, f.lockedUntil - this.now()) : 0;
	}

	fail(client: string): void {
		const f = this.failures.get(client) ?? { count: 0, lockedUntil: 0 };
		f.count++;
		if (f.count >= this.freeAttempts) {
			const lock = Math.min(15 * 60_000, 2_000 * 2 ** (f.count - this.freeAttempts));
			f.lockedUntil = this.now() + lock;
		}
		this.failures.set(client, f);
		if (this.failures.size > 10_000) this.failures.delete(this.failures.keys().next().value!);
	}

	succeed(client: string): void {
		this.failures.delete(client);
	}
}

export const loginThrottle = new LoginThrottle();
