import { describe, expect, it } from 'vitest';
import { greekProfileSchema, classicChainSchema } from '../../lib/contract/schemas';
import { parseWith } from '../../lib/contract/validate';
import { decodeFrame } from '../../lib/wire/decode';
import { encodeFrame, initWireEncoder } from '../../lib/wire/encode';
import { SessionClock } from '../market/clock';
import { LiveEngine } from './live';
import { parseGroup } from '../../lib/contract/hubs';
import { groupValue } from '../hubs/frames';
import { dayKeyOf, type DayKey } from '../history/dayKeys';
import { generateDays } from '../history/historyStore';
import type { GexChainValue, GreekProfileValue, MajorsValue } from './categoryPayloads';

async function engine(profile?: 'observed' | 'documented'): Promise<LiveEngine> {
	const wall = Date.parse('2026-11-18T16:00:00Z'); // 11:00 ET
	const live = new LiveEngine(
		4,
		['SPX', 'ES_SPX'],
		new SessionClock({ mode: 'real', wall: () => wall }),
		profile
	);
	await live.advance(Infinity);
	return live;
}

describe('payload profiles', async () => {
	const observed = await engine();
	const documented = await engine('documented');
	await initWireEncoder();

	it('observed (default) greek profiles: net value, 3 priors, null put fields', () => {
		for (const ticker of ['SPX', 'ES_SPX']) {
			for (const category of ['gamma_zero', 'delta_one', 'vanna_zero', 'charm_one']) {
				const o = observed.latest(ticker)!.payloads.get(`state/${category}`)!
					.value as GreekProfileValue;
				const d = documented.latest(ticker)!.payloads.get(`state/${category}`)!
					.value as GreekProfileValue;
				parseWith(greekProfileSchema, o);
				expect(o.mini_contracts.length).toBe(d.mini_contracts.length);
				o.mini_contracts.forEach((row, i) => {
					const [k, civ, piv, cv, cp, pv, pp] = d.mini_contracts[i];
					expect(row[0]).toBe(k);
					expect(row[1]).toBe(civ);
					expect(row[2]).toBe(piv);
					expect(row[3]).toBeCloseTo(cv + pv!, 1);
					expect(row[4]).toHaveLength(3);
					row[4].forEach((p, j) => expect(p).toBeCloseTo(cp[j] + pp![j], 1));
					expect(row[5]).toBeNull();
					expect(row[6]).toBeNull();
				});
				// Documented: both sides, five priors each.
				expect(d.mini_contracts[0][4]).toHaveLength(5);
				expect(d.mini_contracts[0][6]).toHaveLength(5);
				// The JSON says null, as recorded from the live service.
				const body = JSON.parse(
					observed.latest(ticker)!.payloads.get(`state/${category}`)!.body.toString()
				) as { mini_contracts: unknown[][] };
				expect(body.mini_contracts[0].slice(5)).toEqual([null, null]);
			}
		}
	});

	it('observed greek frames leave the put fields absent; they decode to null', () => {
		const o = observed.latest('SPX')!.payloads.get('state/gamma_zero')!.value as GreekProfileValue;
		const back = decodeFrame(encodeFrame('greek', o)).value as GreekProfileValue;
		expect(back.mini_contracts.every((r) => r[5] === null && r[6] === null)).toBe(true);
		const d = documented.latest('SPX')!.payloads.get('state/gamma_zero')!
			.value as GreekProfileValue;
		const backD = decodeFrame(encodeFrame('greek', d)).value as GreekProfileValue;
		expect(backD.mini_contracts.every((r) => typeof r[5] === 'number')).toBe(true);
	});

	it('observed State chains and majors report the OI fields and zero gamma as 0', () => {
		for (const c of ['gex_full', 'gex_zero', 'gex_one']) {
			const snap = observed.latest('SPX')!;
			const state = snap.payloads.get(`state/${c}`)!.value as GexChainValue;
			const classic = snap.payloads.get(`classic/${c}`)!.value as GexChainValue;
			parseWith(classicChainSchema, state);
			expect(state).toMatchObject({
				major_pos_oi: 0,
				major_neg_oi: 0,
				sum_gex_oi: 0,
				delta_risk_reversal: 0,
				zero_gamma: 0
			});
			expect(state.strikes.every((r) => r[2] === 0)).toBe(true);
			expect(state.strikes.map((r) => r[1])).toEqual(classic.strikes.map((r) => r[1]));
			// Classic keeps its OI side.
			expect(classic.sum_gex_oi).not.toBe(0);
			expect(classic.zero_gamma).toBeGreaterThan(0);
			const majors = snap.majors.get(`state/${c}`)!.value as MajorsValue;
			expect(majors).toMatchObject({ mpos_oi: 0, mneg_oi: 0, zero_gamma: 0, net_gex_oi: 0 });
			expect(majors.mpos_vol).toBeGreaterThan(0);
			expect((snap.majors.get(`classic/${c}`)!.value as MajorsValue).mpos_oi).toBeGreaterThan(0);
		}
		const d = documented.latest('SPX')!.payloads.get('state/gex_zero')!.value as GexChainValue;
		expect(d.sum_gex_oi).not.toBe(0);
	});

	it('explicit-expiry State GEX groups take the State shape, classic ones keep theirs', () => {
		const feed = observed.latestExpiry('SPX')!;
		const key = [...feed.keys()].find((k) => k.startsWith('gex_')) ?? 'gex_20261118';
		const compact = key.slice(4);
		const tick = {
			timestamp: 0,
			tickers: new Map([['SPX', { spot: 1, payloads: new Map(), expiryPayloads: feed }]])
		};
		const parse = (name: string) => {
			const p = parseGroup(name);
			if (!p.ok) throw new Error(p.error);
			return p.group;
		};
		const state = groupValue(parse(`SPX_state_gex_${compact}`), tick) as GexChainValue;
		const classic = groupValue(parse(`SPX_classic_gex_${compact}`), tick) as GexChainValue;
		expect(state.sum_gex_oi).toBe(0);
		expect(state.strikes.every((r) => r[2] === 0)).toBe(true);
		expect(classic.strikes.some((r) => r[2] !== 0)).toBe(true);
		expect(documented.latestExpiry('SPX')!.has(`state_gex_${compact}`)).toBe(false);
	});
});

describe('payload profiles in history days', () => {
	it('State GEX days carry the observed zeros, classic days keep their OI side', async () => {
		const days = await generateDays(
			4,
			'SPX',
			['gex_zero', 'state_gex_zero', 'gamma_zero'],
			'2026-11-18',
			20
		);
		const [classic, state, gamma] = ['gex_zero', 'state_gex_zero', 'gamma_zero'].map(
			(k) => JSON.parse(days.get(k as DayKey)!.toString()) as Record<string, unknown>[]
		);
		expect(state).toHaveLength(classic.length);
		state.forEach((s, i) => {
			const c = classic[i] as unknown as GexChainValue;
			const v = s as unknown as GexChainValue;
			expect(v.timestamp).toBe(c.timestamp);
			expect(v).toMatchObject({ major_pos_oi: 0, sum_gex_oi: 0, zero_gamma: 0 });
			expect(v.strikes.map((r) => r[1])).toEqual(c.strikes.map((r) => r[1]));
		});
		expect(classic.some((c) => (c as unknown as GexChainValue).sum_gex_oi !== 0)).toBe(true);
		const g = gamma.at(-1) as unknown as GreekProfileValue;
		expect(g.mini_contracts.every((r) => r[5] === null && r[4].length <= 3)).toBe(true);
		expect(dayKeyOf('state', 'gex_zero')).toBe('state_gex_zero');
		expect(dayKeyOf('classic', 'gex_zero')).toBe('gex_zero');
		expect(dayKeyOf('state', 'gex_zero', 'documented')).toBe('gex_zero');
		expect(dayKeyOf('state', 'gamma_zero')).toBe('gamma_zero');
	});
});
