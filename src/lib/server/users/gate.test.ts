import { describe, expect, it } from 'vitest';
import { createSession, SESSION_COOKIE } from '../auth';
import { checkRequest, type GatePolicy } from '../requestGate';
import { local } from '../requestGate.test-support';

const teams: GatePolicy = { passwordRequired: true, teams: true };
const cookieOf = (token: string) => `${SESSION_COOKIE}=${token}`;

describe('the request gate in teams mode', () => {
	it('asks the role table once the session is a user’s', () => {
		const viewer = createSession(Date.now(), { id: 'v', name: 'vic', role: 'viewer' });
		const trader = createSession(Date.now(), { id: 't', name: 'tia', role: 'trader' });
		const post = { method: 'POST', pathname: '/alerts', search: '?/saveRule' };
		expect(checkRequest(local({ cookie: cookieOf(viewer) }), teams)).toMatchObject({
			ok: true,
			user: { name: 'vic', role: 'viewer' }
		});
		expect(checkRequest(local({ ...post, cookie: cookieOf(viewer) }), teams)).toMatchObject({
			ok: false,
			status: 403
		});
		expect(checkRequest(local({ ...post, cookie: cookieOf(trader) }), teams)).toMatchObject({
			ok: true
		});
	});

	it('refuses a session without a user (a password-only one) in teams mode', () => {
		const bare = createSession();
		expect(checkRequest(local({ cookie: cookieOf(bare) }), teams)).toMatchObject({
			ok: false,
			status: 401
		});
		// Without teams mode a password session is the implicit admin, as before.
		const before: GatePolicy = { passwordRequired: true };
		expect(checkRequest(local({ cookie: cookieOf(bare) }), before)).toMatchObject({
			ok: true,
			user: { role: 'admin' }
		});
	});
});
