/**
 * Dashboard access: a password is required when one is configured (and always when bound to a
 * non-loopback address). Sessions are random tokens held in memory (a restart logs everyone out),
 * carried in an httpOnly SameSite=Strict cookie. Wrong passwords are slowed per client and
 * dashboard-wide (LoginThrottle); after login only same-origin paths are followed (safeNext).
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

/** Sessions held at most; past it, expired ones are purged, then the oldest dropped. */
const MAX_SESSIONS = 10_000;

export function createSession(now = Date.now()): string {
	const token = randomBytes(32).toString('base64url');
	if (sessions.size >= MAX_SESSIONS) {
		for (const [t, expires] of sessions) if (expires <= now) sessions.delete(t);
		for (const t of sessions.keys()) {
			if (sessions.size < MAX_SESSIONS) break;
			sessions.delete(t);
		}
	}
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
 * Wrong-password throttling that can never lock out the right password: the password is
 * verified first and a right one always logs in. A wrong one is answered only after a delay
 * that grows with the client's recent failures (free attempts first, then doubling up to a
 * cap), and after the dashboard-wide cap of failures in the window every wrong answer waits the
 * longest delay. A guesser that waits for its answers gets a few guesses a minute; the user who
 * shares its address (a reverse proxy without ADDRESS_HEADER) still logs in at once.
 */
export interface LoginThrottleOptions {
	freeFailures?: number;
	baseDelayMs?: number;
	maxDelayMs?: number;
	/** Failures are forgotten after this long without one. */
	windowMs?: number;
	/** Dashboard-wide failures in the window after which every wrong answer waits maxDelayMs. */
	globalCap?: number;
	now?: () => number;
}

export class LoginThrottle {
	private readonly clients = new Map<string, { count: number; last: number }>();
	/** Dashboard-wide failures per minute (bounded: one slot per minute of the window). */
	private readonly perMinute = new Map<number, number>();
	private readonly o: Required<LoginThrottleOptions>;

	constructor(options: LoginThrottleOptions = {}) {
		this.o = {
			freeFailures: 5,
			baseDelayMs: 1_000,
			maxDelayMs: 30_000,
			windowMs: 15 * 60_000,
			globalCap: 100,
			now: Date.now,
			...options
		};
	}

	/** Record a wrong password from `client`; the answer waits `delayMs`. */
	failed(client: string): { delayMs: number; globalCapped: boolean } {
		const now = this.o.now();
		const prev = this.clients.get(client);
		const count = prev && now - prev.last < this.o.windowMs ? prev.count + 1 : 1;
		this.clients.delete(client); // re-insert: the Map stays ordered by last failure
		this.clients.set(client, { count, last: now });
		if (this.clients.size > 10_000) this.clients.delete(this.clients.keys().next().value!);
		const minute = Math.floor(now / 60_000);
		this.perMinute.set(minute, (this.perMinute.get(minute) ?? 0) + 1);
		let recent = 0;
		for (const [m, n] of this.perMinute) {
			if ((minute - m) * 60_000 >= this.o.windowMs) this.perMinute.delete(m);
			else recent += n;
		}
		const globalCapped = recent > this.o.globalCap;
		const extra = count - this.o.freeFailures;
		const own = extra <= 0 ? 0 : Math.min(this.o.maxDelayMs, this.o.baseDelayMs * 2 ** (extra - 1));
		return { delayMs: globalCapped ? this.o.maxDelayMs : own, globalCapped };
	}

	/** The right password: the client's record is cleared. */
	succeeded(client: string): void {
		this.clients.delete(client);
	}
}

export const loginThrottle = new LoginThrottle();

const NEXT_BASE = 'http://gexdeck.invalid';

/**
 * Where to go after logging in: a path of this dashboard, never another site. `next` is parsed
 * as a URL against a fixed base and must stay on it; control characters and backslashes (which
 * browsers treat as `/` or drop, e.g. `/\t/evil.example`) are refused outright.
 */
export function safeNext(next: unknown): string {
	if (typeof next !== 'string' || !next.startsWith('/') || next.length > 2048) return '/';
	// eslint-disable-next-line no-control-regex
	if (/[\x00-\x1f\x7f\\]/.test(next)) return '/';
	let url: URL;
	try {
		url = new URL(next, NEXT_BASE);
	} catch {
		return '/';
	}
	if (url.origin !== NEXT_BASE) return '/';
	const path = `${url.pathname}${url.search}${url.hash}`;
	return path.startsWith('//') ? '/' : path;
}
