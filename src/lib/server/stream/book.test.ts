import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planPatch } from '../../contract/hubs';
import { SubscriptionBook } from './book';

const TICKERS = ['SPX', 'ES_SPX', 'SPY', 'AAPL', 'QQQ', 'NVDA', 'XSP', 'TSLA'];
const CATEGORIES = [
	'classic_gex_full',
	'classic_gex_zero',
	'state_gex_one',
	'state_gamma_zero',
	'state_delta_one',
	'orderflow_orderflow'
];
const groupArb = fc
	.tuple(fc.constantFrom(...TICKERS), fc.constantFrom(...CATEGORIES))
	.map(([t, c]) => `${t}_${c}`);

describe('SubscriptionBook', () => {
	it('keeps a reference-counted union: a group leaves only when its last viewer does', () => {
		const book = new SubscriptionBook<string>();
		book.add('a', ['SPX_classic_gex_full', 'SPX_state_gamma_zero']);
		book.add('b', ['SPX_classic_gex_full', 'SPY_classic_gex_zero']);
		expect(book.plan().groups).toEqual([
			'SPX_classic_gex_full',
			'SPX_state_gamma_zero',
			'SPY_classic_gex_zero',
			'SPX_spot',
			'SPY_spot'
		]);
		expect(book.removeViewer('b')).toEqual(['SPY_classic_gex_zero']);
		expect(book.plan().groups).toEqual([
			'SPX_classic_gex_full',
			'SPX_state_gamma_zero',
			'SPX_spot'
		]);
		expect(book.plan().usage.used).toBe(4);
		expect([...(book.viewersOfTicker('SPX') ?? [])]).toEqual(['a']);
		expect(book.viewersOfTicker('SPY')).toBeUndefined();
	});

	it('every union plan is a valid complete PATCH set within the limit', () => {
		fc.assert(
			fc.property(
				fc.array(
					fc.tuple(
						fc.constantFrom('a', 'b', 'c'),
						fc.boolean(),
						fc.array(groupArb, { maxLength: 8 })
					),
					{ maxLength: 30 }
				),
				fc.integer({ min: 2, max: 40 }),
				(ops, limit) => {
					const book = new SubscriptionBook<string>(limit);
					for (const [viewer, add, groups] of ops) {
						if (add) {
							const r = book.add(viewer, groups);
							for (const x of r.refused) expect(x.reason).toMatch(/Membership limit/);
						} else book.remove(viewer, groups);
						const plan = book.plan();
						expect(plan.usage.used).toBeLessThanOrEqual(limit);
						const check = planPatch(plan.memberships, { limit });
						expect(check.ok, check.ok ? '' : check.error).toBe(true);
						if (check.ok) expect(check.memberships.length).toBe(plan.usage.used);
					}
				}
			)
		);
	});

	it('refuses spot and invalid groups and says why', () => {
		const book = new SubscriptionBook<string>(4);
		const r = book.add('a', [
			'SPX_spot',
			'SPX_classic_nothing',
			'SPX_classic_gex_full',
			'SPX_state_gex_full',
			'SPX_orderflow_orderflow'
		]);
		expect(r.accepted).toEqual(['SPX_classic_gex_full', 'SPX_state_gex_full']);
		expect(r.refused.map((x) => x.group)).toEqual([
			'SPX_spot',
			'SPX_classic_nothing',
			'SPX_orderflow_orderflow'
		]);
		expect(r.refused[2].reason).toMatch(/needs 6 .* limit is 4/);
	});

	it("a spot frame's audience follows viewers leaving after it was computed", () => {
		const book = new SubscriptionBook<string>();
		book.add('a', ['SPX_classic_gex_full']);
		book.add('b', ['SPX_state_gamma_zero', 'SPY_classic_gex_zero']);
		book.add('c', ['SPX_classic_gex_full']);
		expect([...(book.viewersOfTicker('SPX') ?? [])].sort()).toEqual(['a', 'b', 'c']);
		// b leaves its SPX group (the union keeps SPX_classic_gex_full): no SPX frames for b.
		book.remove('b', ['SPX_state_gamma_zero']);
		expect([...(book.viewersOfTicker('SPX') ?? [])].sort()).toEqual(['a', 'c']);
		expect([...(book.viewersOfTicker('SPY') ?? [])]).toEqual(['b']);
		// c closes its socket while a still holds the same group.
		expect(book.removeViewer('c')).toEqual([]);
		expect([...(book.viewersOfTicker('SPX') ?? [])]).toEqual(['a']);
		book.removeViewer('b');
		expect(book.viewersOfTicker('SPY')).toBeUndefined();
	});

	it('the ticker audience equals its holders after any sequence, read between the changes', () => {
		fc.assert(
			fc.property(
				fc.array(
					fc.tuple(
						fc.constantFrom('a', 'b', 'c'),
						fc.constantFrom('add', 'remove', 'leave'),
						fc.array(groupArb, { maxLength: 4 })
					),
					{ maxLength: 30 }
				),
				(ops) => {
					const book = new SubscriptionBook<string>(10_000);
					const model = new Map<string, Set<string>>();
					for (const [viewer, op, groups] of ops) {
						const mine = model.get(viewer) ?? new Set<string>();
						model.set(viewer, mine);
						if (op === 'add') for (const g of book.add(viewer, groups).accepted) mine.add(g);
						else if (op === 'remove') for (const g of book.remove(viewer, groups)) mine.delete(g);
						else {
							book.removeViewer(viewer);
							mine.clear();
						}
						for (const ticker of TICKERS) {
							const want = [...model]
								.filter(([, gs]) => [...gs].some((g) => book.tickerOfGroup(g) === ticker))
								.map(([v]) => v)
								.sort();
							const got = [...(book.viewersOfTicker(ticker) ?? [])].sort();
							expect(got, ticker).toEqual(want);
						}
					}
				}
			)
		);
	});
});
