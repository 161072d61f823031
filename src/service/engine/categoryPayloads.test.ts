import { describe, expect, it } from 'vitest';
import {
	classicChainSchema,
	greekProfileSchema,
	majorsSchema,
	maxChangeSchema,
	orderflowSchema
} from '../../lib/contract/schemas';
import { parseWith } from '../../lib/contract/validate';
import { ORDERFLOW_REST_NAMES } from '../../lib/contract/orderflowFields';
import { SessionClock } from '../market/clock';
import { LiveEngine } from './live';
import type { GexChainValue, GreekProfileValue, VolumeProfileValue } from './categoryPayloads';

async function engineAt(iso: string, tickers: string[]): Promise<LiveEngine> {
	const wall = Date.parse(iso);
	// The documented call/put split: the engine's full output (./profiles.test.ts: observed).
	const live = new LiveEngine(
		3,
		tickers,
		new SessionClock({ mode: 'real', wall: () => wall }),
		'documented'
	);
	await live.advance(Infinity);
	return live;
}

describe('payloads', async () => {
	// 11:00 ET: 90 minutes of trading, so every lookback is inside the session.
	const live = await engineAt('2026-11-18T16:00:00Z', ['SPX', 'ES_SPX', 'XSP', 'NVDA']);

	it('match the contract schemas for every category', () => {
		for (const ticker of ['SPX', 'ES_SPX', 'XSP', 'NVDA']) {
			const snap = live.latest(ticker);
			expect(snap).toBeDefined();
			for (const c of ['gex_full', 'gex_zero', 'gex_one']) {
				parseWith(
					classicChainSchema,
					JSON.parse(snap!.payloads.get(`classic/${c}`)!.body.toString())
				);
				parseWith(majorsSchema, JSON.parse(snap!.majors.get(`classic/${c}`)!.body.toString()));
				parseWith(maxChangeSchema, JSON.parse(snap!.maxchange.get(`state/${c}`)!.body.toString()));
			}
			for (const g of ['delta', 'gamma', 'vanna', 'charm'])
				for (const e of ['zero', 'one'])
					parseWith(
						greekProfileSchema,
						JSON.parse(snap!.payloads.get(`state/${g}_${e}`)!.body.toString())
					);
			const of = parseWith(orderflowSchema, snap!.payloads.get('orderflow/orderflow')!.value);
			for (const field of ORDERFLOW_REST_NAMES) expect(typeof of[field], field).toBe('number');
		}
	});

	it('carry five priors per strike, six max changes and a computed zero gamma', () => {
		const v = live.latest('SPX')!.payloads.get('classic/gex_full')!.value as GexChainValue;
		expect(v.ticker).toBe('SPX');
		expect(v.timestamp).toBe(Date.parse('2026-11-18T16:00:00Z') / 1000);
		expect(v.strikes.length).toBeGreaterThan(40);
		for (const row of v.strikes) expect(row[3]).toHaveLength(5);
		expect(v.max_priors).toHaveLength(6);
		expect(v.zero_gamma).toBeGreaterThan(v.spot * 0.8);
		expect(v.zero_gamma).toBeLessThan(v.spot * 1.2);
		expect(v.min_dte).toBe(0);
		expect(v.sec_min_dte).toBe(1);
		// Negative index skew: the 25-delta put is richer than the 25-delta call.
		expect(v.delta_risk_reversal).toBeLessThan(0);
		// $M per 1% move: inside the sint32 x1000 wire range.
		expect(Math.abs(v.sum_gex_oi)).toBeLessThan(2_000_000);
		const strikes = v.strikes.map((r) => r[0]);
		expect([...strikes].sort((a, b) => a - b)).toEqual(strikes);
	});

	it('serve the same bytes for every read within the second', () => {
		const a = live.latest('SPX')!.payloads.get('classic/gex_zero')!.body;
		const b = live.latest('SPX')!.payloads.get('state/gex_zero')!.body;
		expect(a).toBe(b);
	});

	it('shift ES_SPX by the futures basis and scale XSP to a tenth of SPX', () => {
		const spx = live.latest('SPX')!.payloads.get('classic/gex_zero')!.value as GexChainValue;
		const es = live.latest('ES_SPX')!.payloads.get('classic/gex_zero')!.value as GexChainValue;
		const xsp = live.latest('XSP')!.payloads.get('classic/gex_zero')!.value as GexChainValue;
		expect(es.spot - spx.spot).toBeGreaterThan(0);
		expect(es.spot - spx.spot).toBeLessThan(spx.spot * 0.02);
		for (const row of es.strikes) expect(row[0] % 5).toBe(0);
		expect(es.strikes.map((r) => r[1])).toEqual(spx.strikes.map((r) => r[1]));
		expect(xsp.spot).toBeCloseTo(spx.spot / 10, 1);
	});

	it('build greek and volume profiles of the expiry sets', () => {
		const g = live.latest('NVDA')!.payloads.get('state/gamma_zero')!.value as GreekProfileValue;
		for (const row of g.mini_contracts) {
			expect(row[1]).toBeGreaterThan(0);
			expect(row[4]).toHaveLength(5);
			expect(row[6]).toHaveLength(5);
			expect(row[3]).toBeGreaterThanOrEqual(0); // calls carry +gamma, puts -gamma
			expect(row[5]).toBeLessThanOrEqual(0);
		}
		const vol = live.latest('NVDA')!.payloads.get('state/volume_zero')!.value as VolumeProfileValue;
		const calls = vol.strikes.reduce((s, r) => s + r[1], 0);
		expect(calls).toBeLessThanOrEqual(vol.total_call_volume);
		for (const r of vol.strikes) expect(r[3] + r[4]).toBeLessThanOrEqual(r[1]);
	});

	it('publish explicit-expiry profiles on 5-second ticks', async () => {
		const five = await engineAt('2026-11-18T16:00:05Z', ['AAPL']);
		const feed = five.latestExpiry('AAPL');
		expect(feed?.get('gamma_20261120')).toBeDefined();
		parseWith(greekProfileSchema, feed!.get('delta_20261127')!.value);
		expect(feed?.get('gamma_20261121')).toBeUndefined();
	});

	it("serve the previous session's close outside RTH", async () => {
		const night = await engineAt('2026-11-19T03:00:00Z', ['AAPL']);
		const v = night.latest('AAPL')!.payloads.get('classic/gex_full')!.value as GexChainValue;
		expect(v.timestamp).toBe(Date.parse('2026-11-18T21:00:00Z') / 1000);
	});
});
