/**
 * The Account page's status with an upstream whose whoami answers a partial or reshaped body:
 * the page gets a clear error for that key (and every feature says why it cannot be checked),
 * never a thrown exception (which was a 500 for the whole page).
 */
import { describe, expect, it, vi } from 'vitest';

const answer = vi.hoisted(() => ({ body: {} as unknown }));
const CUSTOM = `gexbot_custom_${'a'.repeat(43)}`;

vi.mock('$env/dynamic/private', () => ({ env: {} }));
vi.mock('./upstream', () => ({
	upstreamTarget: async () => ({
		baseUrl: 'http://127.0.0.1:9/v2',
		rootUrl: 'http://127.0.0.1:9',
		kind: 'configured',
		customKey: CUSTOM,
		researchKey: undefined,
		customKeySource: 'env',
		researchKeySource: 'none',
		demoAccounts: [],
		demoAccountId: undefined
	})
}));
vi.mock('./services', () => ({
	upstreamProxy: () => ({
		account: async () => answer.body,
		backoff: { snapshot: () => ({}) }
	}),
	quotaLedger: () => ({ usage: () => ({}), lastWriteError: undefined })
}));

const { accountStatus } = await import('./accountStatus');

describe('accountStatus', () => {
	for (const [name, body] of [
		['an empty object', {}],
		['a missing api_key and max_level', { _id: 'acct' }],
		['a string', 'ok'],
		['null', null]
	] as const) {
		it(`reports whoami answering ${name} as an error, not a crash`, async () => {
			answer.body = body;
			const status = await accountStatus();
			expect(status.custom.whoami).toBeNull();
			expect(status.custom.error).toMatch(/whoami answered an unexpected shape \(\$/);
			expect(status.features.length).toBeGreaterThan(0);
			for (const f of status.features) {
				expect(f.available).toBe(false);
				expect(f.reason).toMatch(/could not be checked|No Research key/);
			}
		});
	}
});
