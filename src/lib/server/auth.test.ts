import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
	createSession,
	endSession,
	LoginThrottle,
	passwordMatches,
	safeNext,
	sessionValid,
	SESSION_TTL_MS
} from './auth';

describe('dashboard access', () => {
	it('compares passwords exactly', () => {
		expect(passwordMatches('s3cret', 's3cret')).toBe(true);
		expect(passwordMatches('s3cret ', 's3cret')).toBe(false);
		expect(passwordMatches('', 's3cret')).toBe(false);
	});

	it('expires sessions', () => {
		const t = createSession(0);
		expect(sessionValid(t, SESSION_TTL_MS - 1)).toBe(true);
		expect(sessionValid(t, SESSION_TTL_MS)).toBe(false);
		expect(sessionValid('forged', 0)).toBe(false);
		expect(sessionValid(undefined, 0)).toBe(false);
	});

	it('holds a bounded number of sessions (expired first, then the oldest go)', () => {
		const first = createSession(0);
		for (let i = 0; i < 10_000; i++) createSession(1);
		expect(sessionValid(first, 2)).toBe(false);
		expect(sessionValid(createSession(2), 3)).toBe(true);
	});

	it('slows wrong passwords per client and dashboard-wide, never locking anyone out', () => {
		let now = 0;
		const t = new LoginThrottle({
			freeFailures: 2,
			baseDelayMs: 1000,
			maxDelayMs: 8000,
			globalCap: 11,
			windowMs: 60_000,
			now: () => now
		});
		expect(t.failed('ip').delayMs).toBe(0);
		expect(t.failed('ip').delayMs).toBe(0);
		expect(t.failed('ip').delayMs).toBe(1000);
		expect(t.failed('ip').delayMs).toBe(2000);
		for (let i = 0; i < 5; i++) t.failed('ip');
		expect(t.failed('ip').delayMs).toBe(8000);
		// Another client is not slowed by this one...
		expect(t.failed('other').delayMs).toBe(0);
		// ...until the dashboard-wide cap of failures in the window is passed.
		expect(t.failed('third')).toEqual({ delayMs: 8000, globalCapped: true });
		// The right password clears the client's record; the window forgets old failures.
		t.succeeded('ip');
		now = 61_000;
		expect(t.failed('ip')).toEqual({ delayMs: 0, globalCapped: false });
	});
});

describe('sessions and the throttle at their limits', () => {
	it('lasts 12 hours; a logout ends it', () => {
		expect(SESSION_TTL_MS).toBe(12 * 3_600_000);
		const t = createSession(0);
		endSession(t);
		expect(sessionValid(t, 1)).toBe(false);
		endSession(undefined);
	});

	it('when full, drops expired sessions before any live one', async () => {
		vi.resetModules();
		const fresh = await import('./auth');
		const ttl = fresh.SESSION_TTL_MS;
		const live = fresh.createSession(0); // the oldest, valid until ttl
		for (let i = 0; i < 9_999; i++) fresh.createSession(-1); // expire at ttl - 1
		fresh.createSession(ttl - 1);
		expect(fresh.sessionValid(live, ttl - 1)).toBe(true);
	});

	it('forgets failures after 15 minutes by default, and a client once it logs in', () => {
		let now = 0;
		const t = new LoginThrottle({ freeFailures: 1, now: () => now });
		t.failed('a');
		now = 15 * 60_000 - 1;
		expect(t.failed('a').delayMs).toBe(1000);
		now += 15 * 60_000; // exactly the window after the last failure
		expect(t.failed('a').delayMs).toBe(0);
		expect(t.failed('a').delayMs).toBe(1000);
		t.succeeded('a');
		expect(t.failed('a').delayMs).toBe(0);
	});

	it('remembers at most 10,000 clients, the least recently failed forgotten first', () => {
		const t = new LoginThrottle({ freeFailures: 1, globalCap: 1e9, now: () => 0 });
		t.failed('first');
		for (let i = 0; i < 9_999; i++) t.failed(`c${i}`);
		expect(t.failed('first').delayMs).toBe(1000); // 10,000 clients: still known
		for (let i = 0; i < 10_000; i++) t.failed(`d${i}`);
		expect(t.failed('first').delayMs).toBe(0);
	});

	it('counts dashboard-wide failures per minute over the whole window', () => {
		let now = 0;
		const t = new LoginThrottle({ globalCap: 4, windowMs: 120_000, now: () => now });
		for (let i = 0; i < 4; i++) expect(t.failed(`x${i}`).globalCapped).toBe(false);
		now = 60_000; // the next minute: the first one's four still count
		expect(t.failed('y').globalCapped).toBe(true);
		now = 120_000; // minute 0 left the window: 1 (minute 1) + this one
		expect(t.failed('z').globalCapped).toBe(false);
	});
});

describe('the page after login (next)', () => {
	it('keeps same-origin paths', () => {
		expect(safeNext('/account')).toBe('/account');
		expect(safeNext('/SPX/classic?x=1#top')).toBe('/SPX/classic?x=1#top');
		expect(safeNext('/a/../b')).toBe('/b');
		expect(safeNext('/a//')).toBe('/a//');
		const long = `/${'a'.repeat(2047)}`;
		expect(safeNext(long)).toBe(long);
		expect(safeNext(`${long}a`)).toBe('/');
	});

	it('refuses other sites, control characters and backslashes', () => {
		for (const bad of [
			'/\t/evil.example',
			'/\r\n/evil.example',
			'/x\u0000y',
			'/\u007f',
			'//evil.example',
			'//evil.example/account',
			'/.//evil.example',
			'/\\evil.example',
			'https://evil.example/',
			'evil.example',
			'',
			null,
			undefined
		]) {
			expect(safeNext(bad)).toBe('/');
		}
	});

	it('always yields a path of this site (fast-check)', () => {
		fc.assert(
			fc.property(fc.string({ unit: 'binary' }), (raw) => {
				for (const next of [raw, `/${raw}`, `//${raw}`, `/\t/${raw}`]) {
					const out = safeNext(next);
					expect(out.startsWith('/')).toBe(true);
					expect(out.startsWith('//')).toBe(false);
					// eslint-disable-next-line no-control-regex
					expect(/[\x00-\x1f\x7f\\]/.test(out)).toBe(false);
					expect(new URL(out, 'https://dash.example').origin).toBe('https://dash.example');
				}
			}),
			{ numRuns: 2000 }
		);
	});
});
