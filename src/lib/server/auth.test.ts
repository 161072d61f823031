import { describe, expect, it } from 'vitest';
import {
	createSession,
	LoginThrottle,
	passwordMatches,
	sessionValid,
	SESSION_TTL_MS
} from './auth';
import { csrfFailure } from './csrf';

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

	it('throttles repeated failed logins with a growing lockout', () => {
		let now = 0;
		const t = new LoginThrottle(3, () => now);
		t.fail('ip');
		t.fail('ip');
		expect(t.waitMs('ip')).toBe(0);
		t.fail('ip');
		expect(t.waitMs('ip')).toBe(2000);
		now = 2000;
		t.fail('ip');
		expect(t.waitMs('ip')).toBe(4000);
		expect(t.waitMs('other')).toBe(0);
		t.succeed('ip');
		expect(t.waitMs('ip')).toBe(0);
	});
});

describe('CSRF', () => {
	const post = (headers: Record<string, string>, body?: string) =>
		new Request('http://127.0.0.1:3000/account?/saveKeys', {
			method: 'POST',
			headers: { host: '127.0.0.1:3000', ...headers },
			body
		});
	const form = { 'content-type': 'application/x-www-form-urlencoded' };

	it('lets safe methods through', async () => {
		expect(await csrfFailure(new Request('http://x/'), undefined)).toBeUndefined();
	});

	it('needs this host as Origin and the token in a header or form field', async () => {
		const origin = { origin: 'http://127.0.0.1:3000' };
		expect(await csrfFailure(post({ ...origin, 'x-csrf-token': 'tok' }), 'tok')).toBeUndefined();
		expect(await csrfFailure(post({ ...origin, ...form }, 'csrf=tok&a=1'), 'tok')).toBeUndefined();
		expect(await csrfFailure(post({ ...origin, ...form }, 'csrf=nope'), 'tok')).toMatch(/token/);
		expect(await csrfFailure(post({ ...origin }), 'tok')).toMatch(/token/);
		expect(
			await csrfFailure(post({ origin: 'http://evil.example', 'x-csrf-token': 'tok' }), 'tok')
		).toMatch(/cross-origin/);
		expect(await csrfFailure(post({ 'x-csrf-token': 'tok' }), 'tok')).toMatch(/cross-origin/);
		expect(
			await csrfFailure(post({ 'sec-fetch-site': 'same-origin', 'x-csrf-token': 'tok' }), 'tok')
		).toBeUndefined();
		expect(await csrfFailure(post({ ...origin, 'x-csrf-token': 'tok' }), undefined)).toMatch(
			/token/
		);
	});
});
