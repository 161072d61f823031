/**
 * The rule engine on plain observation arrays: crossings with hysteresis, direction, cooldowns,
 * active windows (ET times, market days), gaps and missing levels, each kind once; and the
 * property that no observation sequence fires a rule twice inside its cooldown.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AlertEngine, type ChainObservation, type Observation } from './engine';
import { parseRule, type AlertRule } from './rules';

function rule(raw: Record<string, unknown>): AlertRule {
	const r = parseRule({ id: 'r1', ticker: 'SPX', cooldownSeconds: 0, ...raw });
	if (!r.ok) throw new Error(r.error);
	return r.value;
}

// Friday 2026-11-20 10:00 ET (a session day; EST, UTC-5).
const T0 = Date.UTC(2026, 10, 20, 15, 0, 0) / 1000;

function chain(t: number, patch: Partial<ChainObservation> = {}): ChainObservation {
	return {
		kind: 'chain',
		ticker: 'SPX',
		stream: 'classic_gex_full',
		t,
		spot: 6800,
		zero_gamma: 6790,
		major_pos_vol: 6850,
		major_neg_vol: 6750,
		major_pos_oi: 6900,
		major_neg_oi: 6700,
		sum_gex_vol: 1000,
		sum_gex_oi: 500,
		max_priors: [6800, 10, 6805, 20, 6810, 30, 6815, 40, 6820, 50, 6825, 60],
		...patch
	};
}

const spot = (t: number, v: number): Observation => ({ kind: 'spot', ticker: 'SPX', t, spot: v });

/** Feeds spots one second apart after a chain at T0; returns the times that fired. */
function run(engine: AlertEngine, obs: Observation[]): number[] {
	return obs.flatMap((o) => engine.observe(o)).map((f) => f.at);
}

describe('cross rules', () => {
	it('fires on a crossing of zero gamma, not on the first observation', () => {
		const e = new AlertEngine([rule({ kind: 'cross', level: 'zero_gamma' })]);
		const fired = e.observe(chain(T0, { spot: 6780 }));
		expect(fired).toEqual([]);
		const [f] = e.observe(spot(T0 + 1, 6795));
		expect(f).toMatchObject({
			ruleId: 'r1',
			ticker: 'SPX',
			kind: 'cross',
			at: T0 + 1,
			direction: 'up',
			values: { spot: 6795, level: 6790 }
		});
		expect(f.message).toContain('crossed above zero gamma 6790');
	});

	it('hysteresis: spot sitting on the level does not flap', () => {
		const e = new AlertEngine([rule({ kind: 'cross', level: 'zero_gamma', hysteresis: 2 })]);
		e.observe(chain(T0, { spot: 6780 }));
		const wiggle = [6789, 6791, 6789.5, 6791.9, 6790, 6788.5].map((v, i) => spot(T0 + 1 + i, v));
		expect(run(e, wiggle)).toEqual([]);
		expect(run(e, [spot(T0 + 10, 6792.5)])).toEqual([T0 + 10]);
		// Back into the band and out on the same side: no new crossing.
		expect(run(e, [spot(T0 + 11, 6789), spot(T0 + 12, 6795)])).toEqual([]);
		expect(run(e, [spot(T0 + 13, 6787.9)])).toEqual([T0 + 13]);
	});

	it('direction up ignores downward crossings but still tracks the side', () => {
		const e = new AlertEngine([
			rule({ kind: 'cross', level: 'price', price: 6800, direction: 'up' })
		]);
		expect(
			run(e, [spot(T0, 6810), spot(T0 + 1, 6790), spot(T0 + 2, 6805), spot(T0 + 3, 6795)])
		).toEqual([T0 + 2]);
	});

	it('crosses a moving level: the level of the latest chain counts', () => {
		const e = new AlertEngine([rule({ kind: 'cross', level: 'major_pos_vol' })]);
		e.observe(chain(T0, { spot: 6840 }));
		// The major moves below spot: that is a crossing too.
		expect(e.observe(chain(T0 + 1, { spot: 6840, major_pos_vol: 6835 }))).toHaveLength(1);
	});

	it('max change strike of a lookback', () => {
		const e = new AlertEngine([rule({ kind: 'cross', level: 'max_change', lookback: 'five' })]);
		e.observe(chain(T0, { spot: 6800 }));
		const [f] = e.observe(spot(T0 + 1, 6811));
		expect(f.values).toEqual({ spot: 6811, level: 6810 });
	});

	it('cooldown: a second crossing inside it is consumed, one after it fires', () => {
		const e = new AlertEngine([
			rule({ kind: 'cross', level: 'price', price: 6800, cooldownSeconds: 60 })
		]);
		const fired = run(e, [
			spot(T0, 6790),
			spot(T0 + 1, 6810), // fires
			spot(T0 + 30, 6790), // inside cooldown
			spot(T0 + 59, 6810), // inside cooldown
			spot(T0 + 61, 6790) // after
		]);
		expect(fired).toEqual([T0 + 1, T0 + 61]);
	});

	it('a gap in the data re-arms instead of firing across it', () => {
		const e = new AlertEngine([rule({ kind: 'cross', level: 'price', price: 6800 })], {
			maxGapSeconds: 60
		});
		expect(run(e, [spot(T0, 6790), spot(T0 + 600, 6810), spot(T0 + 601, 6790)])).toEqual([
			T0 + 601
		]);
	});

	it('a stale level is not crossed; zero gamma 0 (not computed) is not a level', () => {
		const e = new AlertEngine([rule({ kind: 'cross', level: 'zero_gamma' })], {
			maxGapSeconds: 60
		});
		e.observe(chain(T0, { spot: 6780 }));
		expect(run(e, [spot(T0 + 200, 6795)])).toEqual([]);
		const z = new AlertEngine([rule({ kind: 'cross', level: 'zero_gamma' })]);
		z.observe(chain(T0, { spot: 6780, zero_gamma: 0 }));
		z.observe(chain(T0 + 1, { spot: 6795, zero_gamma: 0 }));
		expect(run(z, [spot(T0 + 2, 6700), spot(T0 + 3, 6900)])).toEqual([]);
	});

	it('observations out of order are ignored', () => {
		const e = new AlertEngine([rule({ kind: 'cross', level: 'price', price: 6800 })]);
		expect(run(e, [spot(T0 + 5, 6790), spot(T0 + 3, 6810), spot(T0 + 6, 6790)])).toEqual([]);
	});
});

describe('active windows', () => {
	const windowed = (w: Record<string, unknown>) =>
		new AlertEngine([rule({ kind: 'cross', level: 'price', price: 6800, window: w })]);

	it('fires only between the ET times', () => {
		// 10:00 ET is T0; a 10:30-11:00 window.
		const e = windowed({ start: '10:30', end: '11:00' });
		expect(run(e, [spot(T0, 6790), spot(T0 + 1, 6810)])).toEqual([]);
		const at1030 = T0 + 1800;
		expect(run(e, [spot(at1030, 6790), spot(at1030 + 1, 6810)])).toEqual([at1030 + 1]);
		const at1100 = T0 + 3600;
		expect(run(e, [spot(at1100 - 1, 6790), spot(at1100, 6810)])).toEqual([]);
	});

	it('market days only: nothing on Thanksgiving, weekends; on with marketDays false', () => {
		// Thursday 2026-11-26 10:00 ET, Thanksgiving.
		const thanksgiving = Date.UTC(2026, 10, 26, 15, 0, 0) / 1000;
		const seq = [spot(thanksgiving, 6790), spot(thanksgiving + 1, 6810)];
		expect(run(windowed({ start: '09:30', end: '16:00' }), seq)).toEqual([]);
		expect(run(windowed({ start: '09:30', end: '16:00', marketDays: false }), seq)).toEqual([
			thanksgiving + 1
		]);
	});

	it('follows DST: 09:30 ET is 13:30 UTC in summer', () => {
		const e = windowed({ start: '09:30', end: '09:31' });
		const open = Date.UTC(2026, 6, 15, 13, 30, 0) / 1000; // Wednesday 15 July 2026
		expect(run(e, [spot(open, 6790), spot(open + 1, 6810)])).toEqual([open + 1]);
	});
});

describe('other kinds', () => {
	it('level_move fires when zero gamma moves more than N points from the last firing', () => {
		const e = new AlertEngine([rule({ kind: 'level_move', level: 'zero_gamma', points: 10 })]);
		const zs = [6790, 6795, 6800, 6801, 6805, 6811.5, 6790];
		const fired = zs.flatMap((z, i) => e.observe(chain(T0 + i, { zero_gamma: z })));
		expect(fired.map((f) => f.values.level)).toEqual([6801, 6811.5, 6790]);
		expect(fired[0]).toMatchObject({ direction: 'up', values: { previous: 6790, moved: 11 } });
	});

	it('level_move inside a cooldown fires when it ends if the level is still away', () => {
		const e = new AlertEngine([
			rule({ kind: 'level_move', level: 'major_neg_vol', points: 5, cooldownSeconds: 10 })
		]);
		const seq = [6750, 6756, 6762, 6762, 6762].map((v, i) =>
			chain(T0 + i * 4, { major_neg_vol: v })
		);
		expect(run(e, seq)).toEqual([T0 + 4, T0 + 16]);
	});

	it('max_change fires when the lookback reaches the size, re-arms below size - hysteresis', () => {
		const e = new AlertEngine([
			rule({ kind: 'max_change', lookback: 'one', size: 500, hysteresis: 100 })
		]);
		const at = (t: number, v: number) =>
			chain(t, { max_priors: [6800, 0, 6805, v, 6810, 0, 6815, 0, 6820, 0, 6825, 0] });
		expect(
			run(e, [at(T0, 100), at(T0 + 1, -520), at(T0 + 2, 450), at(T0 + 3, 510), at(T0 + 4, 390)])
		).toEqual([T0 + 1]);
		expect(run(e, [at(T0 + 5, 600)])).toEqual([T0 + 5]);
	});

	it('gex_sign fires when net GEX changes sign beyond the band', () => {
		const e = new AlertEngine([rule({ kind: 'gex_sign', basis: 'vol', hysteresis: 50 })]);
		const seq = [1000, 20, -20, -60, 30, 70].map((v, i) => chain(T0 + i, { sum_gex_vol: v }));
		const fired = run(e, seq);
		expect(fired).toEqual([T0 + 3, T0 + 5]);
	});

	it('flow_cross on the 0DTE DEX flow and the next-expiry GEX flow', () => {
		const e = new AlertEngine([
			rule({ id: 'dex', kind: 'flow_cross', flow: 'dex', value: 1e6, direction: 'up' }),
			rule({ id: 'gex', kind: 'flow_cross', flow: 'gex', expiry: 'one', value: 0 })
		]);
		const of = (t: number, dex: number, oneGex: number): Observation => ({
			kind: 'orderflow',
			ticker: 'SPX',
			t,
			spot: 6800,
			dexoflow: dex,
			gexoflow: 0,
			one_dexoflow: 0,
			one_gexoflow: oneGex
		});
		const fired = [of(T0, 5e5, 10), of(T0 + 1, 2e6, -10)].flatMap((o) => e.observe(o));
		expect(fired.map((f) => f.ruleId).sort()).toEqual(['dex', 'gex']);
	});

	it('paused rules and other tickers are not evaluated', () => {
		const e = new AlertEngine([rule({ kind: 'cross', level: 'price', price: 6800, paused: true })]);
		expect(run(e, [spot(T0, 6790), spot(T0 + 1, 6810)])).toEqual([]);
		expect(e.wants('SPX', 'spot')).toBe(false);
	});

	it('an edited rule re-arms; an unchanged one keeps its state', () => {
		const r = rule({ kind: 'cross', level: 'price', price: 6800, cooldownSeconds: 100 });
		const e = new AlertEngine([r]);
		expect(run(e, [spot(T0, 6790), spot(T0 + 1, 6810)])).toEqual([T0 + 1]);
		e.setRules([r]);
		expect(run(e, [spot(T0 + 2, 6790)])).toEqual([]); // still cooling down
		e.setRules([{ ...r, cooldownSeconds: 0 }]);
		expect(run(e, [spot(T0 + 3, 6810), spot(T0 + 4, 6790)])).toEqual([T0 + 4]);
	});
});

describe('property', () => {
	it('no observation sequence fires a rule twice inside its cooldown', () => {
		const obsArb = fc.array(
			fc.record({
				dt: fc.integer({ min: -5, max: 200 }),
				kind: fc.constantFrom('spot', 'chain', 'orderflow'),
				v: fc.double({ min: 6700, max: 6900, noNaN: true }),
				level: fc.oneof(fc.constant(0), fc.double({ min: 6700, max: 6900, noNaN: true })),
				flow: fc.double({ min: -10, max: 10, noNaN: true })
			}),
			{ maxLength: 200 }
		);
		fc.assert(
			fc.property(
				obsArb,
				fc.integer({ min: 0, max: 300 }),
				fc.double({ min: 0, max: 20, noNaN: true }),
				(steps, cooldown, h) => {
					const rules = [
						rule({
							id: 'a',
							kind: 'cross',
							level: 'zero_gamma',
							hysteresis: h,
							cooldownSeconds: cooldown
						}),
						rule({
							id: 'b',
							kind: 'cross',
							level: 'price',
							price: 6800,
							cooldownSeconds: cooldown
						}),
						rule({
							id: 'c',
							kind: 'level_move',
							level: 'zero_gamma',
							points: h,
							cooldownSeconds: cooldown
						}),
						rule({
							id: 'd',
							kind: 'max_change',
							size: 6800,
							hysteresis: h,
							cooldownSeconds: cooldown
						}),
						rule({ id: 'e', kind: 'gex_sign', hysteresis: h, cooldownSeconds: cooldown }),
						rule({
							id: 'f',
							kind: 'flow_cross',
							flow: 'gex',
							value: 0,
							hysteresis: h,
							cooldownSeconds: cooldown
						})
					];
					const e = new AlertEngine(rules, { maxGapSeconds: 100 });
					let t = T0;
					const last = new Map<string, number>();
					for (const s of steps) {
						t += s.dt;
						const o: Observation =
							s.kind === 'spot'
								? spot(t, s.v)
								: s.kind === 'chain'
									? chain(t, {
											spot: s.v,
											zero_gamma: s.level,
											sum_gex_vol: s.flow,
											max_priors: [s.level, s.v, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
										})
									: {
											kind: 'orderflow',
											ticker: 'SPX',
											t,
											spot: s.v,
											dexoflow: s.flow,
											gexoflow: s.flow,
											one_dexoflow: 0,
											one_gexoflow: 0
										};
						for (const f of e.observe(o)) {
							const prev = last.get(f.ruleId);
							if (prev !== undefined && f.at - prev < cooldown) return false;
							if (prev !== undefined && f.at < prev) return false;
							last.set(f.ruleId, f.at);
						}
					}
					return true;
				}
			),
			{ numRuns: 300 }
		);
	});
});
