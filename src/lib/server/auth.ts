/**
 * Dashboard access: a password is required when one is configured (and always when bound to a
 * non-loopback address) and in teams mode (named users). Sessions are random ids carried in an
 * httpOnly SameSite=Strict cookie; in teams mode they are also rows of the database. Wrong passwords are slowed per client and
 * dashboard-wide (LoginThrottle); after login only same-origin paths are followed (safeNext).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Role } from './users/roles';

export const SESSION_COOKIE = 'gexdeck_session';
export const SESSION_TTL_MS = 12 * 60 * 60_000;

/** Who a session belongs to (teams mode); a password-only session has no user. */
export interface SessionUser {
	id: string;
	name: string;
	role: Role;
}

export interface SessionEntry {
	expires: number;
	user?: SessionUser;
}

/**
 * Live sessions by the SHA-256 of their cookie's random id: the request gate answers from here
 * without waiting for the database. In teams mode each one is also a row of the `sessions` table
 * (users/sessionStore.ts), which restores them after a restart and ends them when a user is
 * disabled, given another role or signed out everywhere (from this process or another).
 */
const sessions = new Map<string, SessionEntry>();

/** The key a session is held under (and stored as): the cookie's id is never kept. */
export function sessionKey(token: string): string {
	return createHash('sha256').update(token).digest('base64url');
}

export function passwordMatches(given: string, expected: string): boolean {
	// Hash both so the comparison is constant-time whatever the lengths.
	const a = createHash('sha256').update(given).digest();
	const b = createHash('sha256').update(expected).digest();
	return timingSafeEqual(a, b);
}

/** Sessions held at most; past it, expired ones are purged, then the oldest dropped. */
const MAX_SESSIONS = 10_000;

/** Hold a session under `key` (a new one, or one restored from the database). */
export function holdSession(key: string, entry: SessionEntry, now = Date.now()): void {
	if (sessions.size >= MAX_SESSIONS && !sessions.has(key)) {
		for (const [k, e] of sessions) if (e.expires <= now) sessions.delete(k);
		for (const k of sessions.keys()) {
			if (sessions.size < MAX_SESSIONS) break;
			sessions.delete(k);
		}
	}
	sessions.set(key, entry);
}

export function createSession(now = Date.now(), user?: SessionUser): string {
	const token = randomBytes(32).toString('base64url');
	holdSession(sessionKey(token), { expires: now + SESSION_TTL_MS, user }, now);
	return token;
}

/** The live session of a cookie's id, or undefined. */
export function sessionOf(token: string | undefined, now = Date.now()): SessionEntry | undefined {
	if (!token) return undefined;
	const key = sessionKey(token);
	const entry = sessions.get(key);
	if (entry === undefined) return undefined;
	if (entry.expires <= now) {
		sessions.delete(key);
		return undefined;
	}
	return entry;
}

export function sessionValid(token: string | undefined, now = Date.now()): boolean {
	return sessionOf(token, now) !== undefined;
}

export function endSession(token: string | undefined): void {
	if (token) dropSessions(new Set([sessionKey(token)]));
}

type EndedListener = (keys: ReadonlySet<string>) => void;
const endedListeners = new Set<EndedListener>();

/**
 * Called with the keys of sessions that ended (sign-out, disable, role change, sign out
 * everywhere): /stream and /alerts/events close the connections opened under them.
 */
export function onSessionsEnded(listener: EndedListener): () => void {
	endedListeners.add(listener);
	return () => endedListeners.delete(listener);
}

/** End these sessions now, and tell the open connections. */
export function dropSessions(keys: ReadonlySet<string>): void {
	const ended = new Set<string>();
	for (const key of keys) if (sessions.delete(key)) ended.add(key);
	if (ended.size === 0) return;
	for (const listener of endedListeners) listener(ended);
}

/** Every held session (the store compares them with the database). */
export function heldSessions(): IterableIterator<[string, SessionEntry]> {
	return sessions.entries();
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
