/**
 * Each user's share as the Account page shows it (usage/memberships.ts, usage/shareTable.ts):
 * a group two users hold counts for both while the slot's total is the union; a user's share of a
 * pool is of the account's calls; the calls the split does not know are shown apart; an admin
 * sees every row, a trader their own and the totals, a viewer their own only.
 */
import { describe, expect, it } from 'vitest';
import { GEXDECK_CALLER, INTEGRATIONS_CALLER, userCaller, type PoolShares } from './callShares';
import { membershipsByOwner, membershipsOf } from './memberships';
import { shareTable, UNATTRIBUTED, type ShareInput } from './shareTable';

const alice = userCaller('a1');
const bob = userCaller('b2');

describe('memberships per owner', () => {
	it('counts each group on its hub and the spot of each ticker, per owner', () => {
		// One analytics group + SPX_spot on the classic hub.
		expect(membershipsOf(['SPX_classic_gex_full'])).toBe(2);
		expect(membershipsOf([])).toBe(0);
		const rows = membershipsByOwner([
			{ owner: alice, groups: ['SPX_classic_gex_full'] },
			{ owner: alice, groups: ['SPX_classic_gex_zero'] },
			{ owner: bob, groups: ['SPX_classic_gex_full', 'NDX_classic_gex_full'] },
			{ owner: GEXDECK_CALLER, groups: [] }
		]);
		const by = Object.fromEntries(rows.map((r) => [r.owner, r]));
		expect(by[alice].groups).toEqual(['SPX_classic_gex_full', 'SPX_classic_gex_zero']);
		expect(by[alice].memberships).toBe(3);
		// The group alice holds too counts for bob as well.
		expect(by[bob].memberships).toBe(4);
		expect(by[GEXDECK_CALLER].memberships).toBe(0);
		// The slot holds the union: fewer than the rows' sum.
		const union = membershipsOf([
			'SPX_classic_gex_full',
			'SPX_classic_gex_zero',
			'NDX_classic_gex_full'
		]);
		expect(union).toBe(5);
		expect(union).toBeLessThan(by[alice].memberships + by[bob].memberships);
	});
});

const calls: Record<string, PoolShares> = {
	api_default: {
		daily: {
			[alice]: { calls: 6, shared: 1 },
			[bob]: { calls: 2, shared: 5 },
			[GEXDECK_CALLER]: { calls: 2, shared: 0 }
		},
		monthly: {
			[alice]: { calls: 30, shared: 1 },
			[bob]: { calls: 2, shared: 5 },
			[GEXDECK_CALLER]: { calls: 2, shared: 0 }
		}
	},
	api_majors: { daily: {}, monthly: { [INTEGRATIONS_CALLER]: { calls: 4, shared: 0 } } }
};

function input(me: ShareInput['me']): ShareInput {
	return {
		me,
		users:
			me.role === 'admin'
				? [
						{ id: 'a1', name: 'alice' },
						{ id: 'b2', name: 'bob' },
						{ id: 'c3', name: 'carol' }
					]
				: [],
		holdings: membershipsByOwner([
			{ owner: alice, groups: ['SPX_classic_gex_full'] },
			{ owner: bob, groups: ['SPX_classic_gex_full', 'NDX_classic_gex_full'] }
		]),
		union: { used: 4, limit: 150 },
		calls,
		// 12 today: 10 attributed, 2 from before this process counted.
		totals: { api_default: { today: 12, month: 40 }, api_majors: { today: 0, month: 4 } },
		pools: ['api_default', 'api_majors'],
		store: 'memory'
	};
}

describe('shareTable', () => {
	it('gives an admin every user, the dashboard, the tokens and the calls not attributed', () => {
		const t = shareTable(input({ id: 'admin-id', name: 'root', role: 'admin' }));
		const names = t.rows.map((r) => r.name);
		expect(names[0]).toBe('root');
		expect(new Set(names)).toEqual(
			new Set([
				'root',
				'alice',
				'bob',
				'carol',
				'gexdeck (recorder/alerts)',
				'integration tokens',
				'earlier (not attributed)'
			])
		);
		const row = (name: string) => t.rows.find((r) => r.name === name)!;
		expect(row('alice').memberships).toBe(2);
		expect(row('bob').memberships).toBe(4);
		expect(row('carol')).toMatchObject({ memberships: 0, pools: [] });
		expect(row('alice').pools).toEqual([
			{ pool: 'api_default', today: 6, month: 30, sharedToday: 1, share: 0.5 }
		]);
		expect(row('bob').pools[0]).toMatchObject({ today: 2, sharedToday: 5, share: 2 / 12 });
		expect(row('integration tokens').pools).toEqual([
			{ pool: 'api_majors', today: 0, month: 4, sharedToday: 0, share: null }
		]);
		const earlier = t.rows.find((r) => r.caller === UNATTRIBUTED)!;
		expect(earlier.pools).toEqual([
			{ pool: 'api_default', today: 2, month: 6, sharedToday: 0, share: 2 / 12 }
		]);
		// The rows' calls add up to the account's total: nothing counted twice, nothing lost.
		const today = t.rows.reduce(
			(n, r) => n + r.pools.reduce((m, c) => m + (c.pool === 'api_default' ? c.today : 0), 0),
			0
		);
		expect(today).toBe(12);
		expect(t.totals).toEqual({
			memberships: 4,
			limit: 150,
			pools: [
				{ pool: 'api_default', today: 12, month: 40 },
				{ pool: 'api_majors', today: 0, month: 4 }
			]
		});
	});

	it('gives a trader their own row and the totals', () => {
		const t = shareTable(input({ id: 'b2', name: 'bob', role: 'trader' }));
		expect(t.rows.map((r) => [r.name, r.you])).toEqual([['bob', true]]);
		expect(t.rows[0].memberships).toBe(4);
		expect(t.totals?.memberships).toBe(4);
	});

	it('gives a viewer their own row only', () => {
		const t = shareTable(input({ id: 'a1', name: 'alice', role: 'viewer' }));
		expect(t.rows.map((r) => r.name)).toEqual(['alice']);
		expect(t.rows[0].pools[0].share).toBe(0.5);
		expect(t.totals).toBeNull();
	});

	it('names the implicit admin of a dashboard without teams mode "owner"', () => {
		const t = shareTable({
			...input({ id: '', name: 'owner', role: 'admin' }),
			users: []
		});
		expect(t.rows[0]).toMatchObject({ name: 'owner', you: true });
	});
});
