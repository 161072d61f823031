import { describe, expect, it } from 'vitest';
import { classicChainSchema, orderflowSchema } from '../../lib/contract/schemas';
import { parseWith } from '../../lib/contract/validate';
import { ORDERFLOW_REST_NAMES } from '../../lib/contract/orderflowFields';
import { parseGroup } from '../../lib/contract/hubs';
import { groupValue } from '../hubs/frames';
import { decodeFrame } from '../../lib/wire/decode';
import { encodeFrame, initWireEncoder } from '../../lib/wire/encode';
import type { TickEvent } from '../source';
import { SessionClock } from '../market/clock';
import { LiveEngine } from './live';
import type { GexChainValue, OrderflowValue } from './categoryPayloads';

describe('explicit-expiry gex and orderflow', async () => {
	// 11:00:00 ET is a 5-second tick, 90 minutes into the session.
	const wall = Date.parse('2026-11-18T16:00:00Z');
	const live = new LiveEngine(
		3,
		['SPX', 'ES_SPX'],
		new SessionClock({ mode: 'real', wall: () => wall })
	);
	await live.advance(Infinity);
	const feed = live.latestExpiry('SPX')!;
	const compact = (d: string) => d.replaceAll('-', '');

	it('are offered for every listed expiry and match the contract schemas', () => {
		const snap = live.latest('SPX')!;
		const full = snap.payloads.get('classic/gex_full')!.value as GexChainValue;
		expect(full.strikes.length).toBeGreaterThan(0);
		const expiries = ['2026-11-18', '2026-11-19', '2026-12-18'];
		for (const e of expiries) {
			expect(feed.has(`gex_${compact(e)}`), e).toBe(true);
			const gex = parseWith(
				classicChainSchema,
				JSON.parse(feed.get(`gex_${compact(e)}`)!.body.toString())
			);
			expect(gex.ticker).toBe('SPX');
			expect(gex.strikes.length).toBeGreaterThan(10);
			const of = parseWith(orderflowSchema, feed.get(`orderflow_${compact(e)}`)!.value);
			for (const field of ORDERFLOW_REST_NAMES) expect(typeof of[field], field).toBe('number');
		}
		expect(feed.get('gex_20261121')).toBeUndefined(); // a Saturday: never listed
	});

	it('restrict the chain to one expiry: the 0DTE chain sums like gex_zero', () => {
		const zero = live.latest('SPX')!.payloads.get('classic/gex_zero')!.value as GexChainValue;
		const one = feed.get('gex_20261118')!.value as GexChainValue;
		expect(one.min_dte).toBe(0);
		expect(one.sec_min_dte).toBe(1);
		expect(one.sum_gex_vol).toBeCloseTo(zero.sum_gex_vol, 0);
		expect(one.sum_gex_oi).toBeCloseTo(zero.sum_gex_oi, 0);
		const later = feed.get('gex_20261218')!.value as GexChainValue;
		expect(later.sum_gex_oi).not.toBeCloseTo(one.sum_gex_oi, 0);
		expect(one.zero_gamma).toBeGreaterThan(one.spot * 0.8);
		expect(one.zero_gamma).toBeLessThan(one.spot * 1.2);
		// Priors and max changes are filled for the expiry (values: expiryHistory.test.ts).
		for (const [, , , priors] of one.strikes) expect(priors).toHaveLength(5);
		expect(one.max_priors).toHaveLength(6);
	});

	it('fill zero_ fields from the expiry and one_ fields from the next one', () => {
		const of0 = feed.get('orderflow_20261118')!.value as OrderflowValue;
		const of1 = feed.get('orderflow_20261119')!.value as OrderflowValue;
		const whole = live.latest('SPX')!.payloads.get('orderflow/orderflow')!.value as OrderflowValue;
		expect(of0.one_agg_dex).toBe(of1.agg_dex);
		expect(of0.agg_dex).toBeCloseTo(whole.agg_dex as number, 0);
		expect(of0.zgr).toBe(whole.zgr);
		expect(of0.dexoflow).toBe(of0.net_dex);
	});

	it('are what the hubs publish for classic, state and orderflow expiry groups', () => {
		const tick: TickEvent = {
			timestamp: 0,
			tickers: new Map([['SPX', { spot: 1, payloads: new Map(), expiryPayloads: feed }]])
		};
		// Classic gets the chain; State its observed shape (payload profiles, ./profiles.ts).
		for (const [name, key] of [
			['SPX_classic_gex_20261218', 'gex_20261218'],
			['SPX_state_gex_20261218', 'state_gex_20261218']
		]) {
			const p = parseGroup(name);
			expect(p.ok).toBe(true);
			if (p.ok) expect(groupValue(p.group, tick)).toBe(feed.get(key)!.value);
		}
		const p = parseGroup('SPX_orderflow_20261218');
		expect(p.ok && groupValue(p.group, tick)).toBe(feed.get('orderflow_20261218')!.value);
	});

	it('are formatted for views (ES_SPX shifts strikes by the basis)', () => {
		const es = live.latestExpiry('ES_SPX')!.get('gex_20261218')!.value as GexChainValue;
		const spx = feed.get('gex_20261218')!.value as GexChainValue;
		expect(es.ticker).toBe('ES_SPX');
		expect(es.strikes.length).toBe(spx.strikes.length);
		expect(es.spot).not.toBe(spx.spot);
	});

	it('go through the wire encoder as Gex and Orderflow frames', async () => {
		await initWireEncoder();
		const gex = feed.get('gex_20261218')!.value as GexChainValue;
		const decoded = decodeFrame(encodeFrame('gex', gex as never));
		expect(decoded.kind).toBe('gex');
		expect((decoded.value as GexChainValue).strikes.length).toBe(gex.strikes.length);
		const of = feed.get('orderflow_20261218')!.value as OrderflowValue;
		expect(decodeFrame(encodeFrame('orderflow', of as never)).kind).toBe('orderflow');
	});
});
