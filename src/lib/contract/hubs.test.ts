import fc from 'fast-check';
import { feedGroup, feedOf } from './feeds';
import { describe, expect, it } from 'vitest';
import { PACKAGE_CATEGORIES, PACKAGES } from './categories';
import { ALL_STREAM_TICKERS } from './tickers';
import {
	countMemberships,
	expiryGroupName,
	legacyHubOf,
	parseGroup,
	planNegotiation,
	planPatch,
	stripGroupPrefix,
	V2_HUBS,
	v2HubOf
} from './hubs';

describe('group names', () => {
	it('maps groups to hubs', () => {
		const hub = (n: string) => {
			const p = parseGroup(n);
			return p.ok && p.group.kind !== 'spot' ? p.group.hub : undefined;
		};
		expect(hub('SPX_classic_gex_full')).toBe('v2_classic');
		expect(hub('SPX_state_gex_zero')).toBe('v2_state_gex');
		expect(hub('SPX_state_gamma_zero')).toBe('v2_state_greeks_zero');
		expect(hub('SPX_state_volume_zero')).toBe('v2_state_greeks_zero');
		expect(hub('SPX_state_charm_one')).toBe('v2_state_greeks_one');
		expect(hub('ES_SPX_orderflow_orderflow')).toBe('v2_orderflow');
		expect(hub('SOXL_classic_gex_20260717')).toBe('v2_classic');
		expect(hub('SOXL_state_gex_20260717')).toBe('v2_state_gex');
		expect(hub('SOXL_state_gamma_20260717')).toBe('v2_state_greeks');
		expect(hub('SOXL_orderflow_20260717')).toBe('v2_orderflow');
	});

	it('parses tickers containing underscores and spot groups', () => {
		expect(parseGroup('NQ_NDX_state_vanna_one')).toMatchObject({
			ok: true,
			group: { ticker: 'NQ_NDX', package: 'state', category: 'vanna_one', frame: 'greek' }
		});
		expect(parseGroup('ES_SPX_spot')).toMatchObject({
			ok: true,
			group: { kind: 'spot', ticker: 'ES_SPX' }
		});
		expect(parseGroup('XSP_spot')).toMatchObject({ ok: true });
	});

	it('refuses invalid names with a message', () => {
		for (const bad of [
			'FOO_spot',
			'SPX_classic_gamma_zero',
			'SPX_state_orderflow',
			'SPX_classic_gex_20260230',
			'SPX_orderflow_gex_20260717',
			'SPX_classic',
			'SPX_quant_gex_full',
			'spx_classic_gex_full',
			''
		]) {
			const p = parseGroup(bad);
			expect(p.ok, bad).toBe(false);
			if (!p.ok) expect(p.error.length).toBeGreaterThan(5);
		}
	});

	it('formats what it parses', () => {
		expect(parseGroup(feedGroup(feedOf('SPX', 'state', 'gamma_one'))).ok).toBe(true);
		expect(expiryGroupName('SPX', 'orderflow', 'orderflow', '20260717')).toBe(
			'SPX_orderflow_20260717'
		);
		expect(parseGroup(expiryGroupName('SPX', 'state', 'vanna', '20260717')).ok).toBe(true);
		expect(stripGroupPrefix('blue_SPX_spot', 'blue')).toBe('SPX_spot');
		expect(stripGroupPrefix('red_SPX_spot', 'blue')).toBeUndefined();
		for (const h of V2_HUBS) expect(v2HubOf(legacyHubOf(h))).toBe(h);
	});

	it('never throws on arbitrary input', () => {
		fc.assert(
			fc.property(fc.anything(), (x) => {
				expect(typeof parseGroup(x).ok).toBe('boolean');
			})
		);
	});
});

describe('POST negotiation plan', () => {
	it('expands spot onto every hub with that ticker, counting each', () => {
		const plan = planNegotiation([
			'SPX_classic_gex_full',
			'SPX_state_gamma_zero',
			'SPX_spot',
			'ES_SPX_orderflow_orderflow',
			'ES_SPX_spot',
			'SPX_classic_gex_full'
		]);
		expect(plan.ok).toBe(true);
		if (!plan.ok) return;
		expect(plan.memberships).toHaveLength(6);
		expect(plan.hubs).toMatchObject({
			v2_classic: 2,
			v2_state_greeks_zero: 2,
			v2_orderflow: 2,
			v2_state_gex: 0
		});
		expect(plan.usedHubs).toEqual(['v2_classic', 'v2_state_greeks_zero', 'v2_orderflow']);
	});

	it('reports spot coverage errors', () => {
		expect(planNegotiation(['SPX_classic_gex_full'])).toMatchObject({
			ok: false,
			status: 400,
			error: expect.stringContaining('SPX_spot')
		});
		expect(planNegotiation(['SPX_classic_gex_full', 'SPX_spot', 'QQQ_spot'])).toMatchObject({
			ok: false,
			error: expect.stringContaining('QQQ_spot')
		});
		expect(planNegotiation([])).toMatchObject({ ok: false, status: 400 });
	});

	it('enforces the limit with 403', () => {
		const groups = ['SPX_spot', 'SPX_classic_gex_full', 'SPX_classic_gex_zero'];
		expect(planNegotiation(groups, { limit: 3 }).ok).toBe(true);
		expect(planNegotiation(groups, { limit: 2 })).toMatchObject({ ok: false, status: 403 });
	});

	it('checks explicit expiries when told how', () => {
		const groups = ['SPX_spot', 'SPX_state_gamma_20260717'];
		expect(planNegotiation(groups, { isValidExpiry: () => false })).toMatchObject({
			ok: false,
			status: 400
		});
		expect(planNegotiation(groups, { isValidExpiry: () => true }).ok).toBe(true);
	});
});

describe('PATCH plan', () => {
	it('accepts the documented example', () => {
		const plan = planPatch([
			{ hub: 'v2_classic', group: 'SPX_classic_gex_full' },
			{ hub: 'v2_classic', group: 'SPX_spot' },
			{ hub: 'v2_state_greeks_zero', group: 'SPX_state_gamma_zero' },
			{ hub: 'v2_state_greeks_zero', group: 'SPX_spot' },
			{ hub: 'v2_orderflow', group: 'ES_SPX_orderflow_orderflow' },
			{ hub: 'v2_orderflow', group: 'ES_SPX_spot' },
			{ hub: 'v2_orderflow', group: 'ES_SPX_spot' }
		]);
		expect(plan).toMatchObject({
			ok: true,
			hubs: { v2_classic: 2, v2_state_greeks_zero: 2, v2_orderflow: 2 }
		});
		if (plan.ok) expect(countMemberships(plan.memberships)).toBe(6);
	});

	it('refuses wrong hubs and per-hub spot gaps', () => {
		expect(planPatch([{ hub: 'v2_state_gex', group: 'SPX_classic_gex_full' }])).toMatchObject({
			ok: false,
			status: 400
		});
		expect(planPatch([{ hub: 'classic', group: 'SPX_classic_gex_full' }])).toMatchObject({
			ok: false
		});
		expect(
			planPatch([
				{ hub: 'v2_classic', group: 'SPX_classic_gex_full' },
				{ hub: 'v2_orderflow', group: 'SPX_spot' }
			])
		).toMatchObject({ ok: false, error: expect.stringContaining('Spot coverage') });
		expect(planPatch([]).ok).toBe(true);
	});
});

describe('group names round trip', () => {
	it('every stream ticker x package category formats and parses back', () => {
		for (const ticker of ALL_STREAM_TICKERS) {
			for (const pkg of PACKAGES) {
				for (const category of PACKAGE_CATEGORIES[pkg]) {
					const name = feedGroup(feedOf(ticker, pkg, category));
					expect(parseGroup(name), name).toMatchObject({
						ok: true,
						group: { ticker, package: pkg, category }
					});
				}
			}
			expect(parseGroup(`${ticker}_spot`)).toMatchObject({
				ok: true,
				group: { kind: 'spot', ticker }
			});
		}
	});
});
