import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AccessTokens, URL_CONNECT_WINDOW_MS } from './tokens';

const claims = { account: 'acct-1', slot: 'custom' as const, hub: 'v2_classic', session: 's1' };

describe('AccessTokens', () => {
	it('verifies what it issued, on the hub it names', () => {
		const tokens = new AccessTokens('a-secret-of-enough-length');
		const token = tokens.issue(claims);
		const check = tokens.verify(token, 'v2_classic');
		expect(check.ok && check.claims).toMatchObject(claims);
		expect(tokens.verify(token, 'v2_orderflow')).toEqual({ ok: false, reason: 'hub' });
	});

	it('refuses after the 15-minute connect window', () => {
		let now = 1_000_000;
		const tokens = new AccessTokens('a-secret-of-enough-length', () => now);
		const token = tokens.issue(claims);
		now += URL_CONNECT_WINDOW_MS;
		expect(tokens.verify(token, 'v2_classic').ok).toBe(true);
		now += 1;
		expect(tokens.verify(token, 'v2_classic')).toEqual({ ok: false, reason: 'expired' });
	});

	it('refuses a token of another secret (foreign) and malformed ones', () => {
		const ours = new AccessTokens('a-secret-of-enough-length');
		const theirs = new AccessTokens('another-secret-entirely!');
		expect(ours.verify(theirs.issue(claims), 'v2_classic')).toEqual({
			ok: false,
			reason: 'signature'
		});
		expect(ours.verify('', 'v2_classic').ok).toBe(false);
		expect(ours.verify('abc', 'v2_classic').ok).toBe(false);
		expect(ours.verify('a.b.c', 'v2_classic').ok).toBe(false);
	});

	it('refuses a token edited in any character (property)', () => {
		const tokens = new AccessTokens('a-secret-of-enough-length');
		const token = tokens.issue(claims);
		const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
		fc.assert(
			fc.property(fc.nat({ max: token.length - 1 }), fc.constantFrom(...alphabet), (index, ch) => {
				fc.pre(token[index] !== ch);
				const edited = token.slice(0, index) + ch + token.slice(index + 1);
				// base64url's last character may carry unused bits: an edit there can decode to
				// the same bytes, which is the same token, not a forgery.
				const same =
					Buffer.from(edited.split('.')[1] ?? '', 'base64url').equals(
						Buffer.from(token.split('.')[1], 'base64url')
					) && edited.split('.')[0] === token.split('.')[0];
				fc.pre(!same);
				expect(tokens.verify(edited, 'v2_classic').ok).toBe(false);
			})
		);
	});

	it('claims cannot be swapped under a valid signature', () => {
		const tokens = new AccessTokens('a-secret-of-enough-length');
		const [, sig] = tokens.issue(claims).split('.');
		const forged = Buffer.from(
			JSON.stringify({ ...claims, account: 'acct-2', exp: Date.now() + 1e9 })
		).toString('base64url');
		expect(tokens.verify(`${forged}.${sig}`, 'v2_classic')).toEqual({
			ok: false,
			reason: 'signature'
		});
	});
});
