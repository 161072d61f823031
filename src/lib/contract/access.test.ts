import { describe, expect, it } from 'vitest';
import { canAccess, type AccountAccess, type KeyState } from './access';
import { getRoute, type RouteId } from './routes';

const acct = (max_level: string, addons: string[] = []): AccountAccess => ({ max_level, addons });

function status(id: RouteId, key: KeyState, account?: AccountAccess): number {
	const d = canAccess(getRoute(id), key, account);
	return d.ok ? 200 : d.status;
}

describe('access rules', () => {
	it('public routes need no key', () => {
		expect(status('tickers', 'missing')).toBe(200);
		expect(status('categories', 'unknown')).toBe(200);
	});

	it('missing Authorization is 400 on data routes but 401 on whoami', () => {
		expect(status('classicChain', 'missing')).toBe(400);
		expect(status('negotiatePost', 'malformed')).toBe(400);
		expect(status('whoami', 'missing')).toBe(401);
		for (const k of ['unknown', 'expired', 'revoked'] as const) {
			expect(status('whoami', k)).toBe(401);
			expect(status('classicChain', k)).toBe(401);
		}
	});

	it('package routes check max_level', () => {
		expect(status('classicChain', 'custom', acct('classic'))).toBe(200);
		expect(status('stateSnapshot', 'custom', acct('classic'))).toBe(403);
		expect(status('stateSnapshot', 'custom', acct('STATE'))).toBe(200);
		expect(status('orderflow', 'platform', acct('state'))).toBe(403);
		expect(status('orderflow', 'custom', acct('quant'))).toBe(200);
	});

	it('EOD and futures take any paid key but never research keys', () => {
		expect(status('eod', 'custom', acct('classic'))).toBe(200);
		expect(status('futuresConversion', 'custom', acct('quant'))).toBe(200);
		expect(status('eod', 'research', acct('quant', ['research']))).toBe(403);
		expect(status('eod', 'custom', acct('none'))).toBe(403);
	});

	it('quant routes need the quant tier', () => {
		expect(status('history', 'custom', acct('orderflow'))).toBe(403);
		expect(status('negotiatePatch', 'custom', acct('quant'))).toBe(200);
		expect(status('expiries', 'research', acct('quant', ['research']))).toBe(403);
	});

	it('research takes only research keys of accounts with the add-on', () => {
		expect(status('research', 'research', acct('quant', ['research']))).toBe(200);
		expect(status('research', 'custom', acct('quant', ['research']))).toBe(403);
		expect(status('research', 'research', acct('quant'))).toBe(403);
	});

	it('whoami takes every product key; suspended child seats are 403', () => {
		expect(status('whoami', 'research', acct('classic'))).toBe(200);
		expect(status('whoami', 'platform', acct('classic'))).toBe(200);
		const suspended = { ...acct('quant'), account: { child: true, suspended: true } };
		expect(status('whoami', 'custom', suspended)).toBe(403);
		expect(status('classicChain', 'custom', suspended)).toBe(403);
	});
});
