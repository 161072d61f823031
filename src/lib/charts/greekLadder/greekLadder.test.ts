import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SchemaError } from '../../contract/validate';
import { columnarGreekProfile } from '../../wire/columnar';
import {
	greekProfileFromColumnar,
	greekProfileUpdate,
	ladderMagnitude,
	ladderModel,
	ladderWindow,
	parseGreekColumns,
	parseGreekProfile,
	type GreekProfile,
	type LadderRow
} from './greekLadder';

const value = fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true });
const priors = fc.array(value, { minLength: 0, maxLength: 5 });
const strike = fc.integer({ min: 1, max: 800_000 }).map((c) => c / 100);
const iv = fc.double({ min: 0, max: 3, noNaN: true });

const row = fc.tuple(strike, iv, iv, value, priors, value, priors);
/** The live service's rows: one net value, 3 priors, null put fields. */
const netRow = fc.tuple(
	strike,
	iv,
	iv,
	value,
	fc.array(value, { minLength: 3, maxLength: 3 }),
	fc.constant(null),
	fc.constant(null)
);

const profile: fc.Arbitrary<GreekProfile> = fc
	.record({
		rows: fc.array(row, { maxLength: 80 }),
		spot: fc.double({ min: 1, max: 8000, noNaN: true }),
		majors: fc.array(fc.constantFrom(0, 7000, 7100.5), { minLength: 4, maxLength: 4 })
	})
	.map(({ rows, spot, majors }) => ({
		timestamp: 1_795_444_720,
		ticker: 'SPX',
		spot,
		min_dte: 0,
		sec_min_dte: 1,
		major_positive: majors[0],
		major_negative: majors[1],
		major_long_gamma: majors[2],
		major_short_gamma: majors[3],
		mini_contracts: rows
	}));

/** The published profile of SPX delta_zero (embedded service, abbreviated). */
const DELTA_ZERO: GreekProfile = {
	timestamp: 1795444720,
	ticker: 'SPX',
	spot: 7369.26,
	min_dte: 0,
	sec_min_dte: 1,
	major_positive: 7340,
	major_negative: 7425,
	major_long_gamma: 7340,
	major_short_gamma: 7375,
	mini_contracts: [
		[7420, 0.0875, 0.0875, 0.68, [2.04, 76.67, 0, 0, 0], -698.76, [-631.89, -216.41, 0, 0, 0]],
		[7330, 0.1674, 0.1674, 31.9, [31.52, 5.82, 0, 0, 0], -6.7, [-4.21, -0.42, 0, 0, 0]],
		[7375, 0.1193, 0.1193, 53.46, [54.85, 53.68, 0.67, 0.67, 0.67], -268.92, [-200.48, -34.28]],
		[7000, 0.377, 0, 11.79, [5.9, 0, 0, 0, 0], 0, [0, 0, 0, 0, 0]]
	]
};

describe('greek ladder shaping', () => {
	it('sorts strikes, keeps call and put sides apart and reads the majors', () => {
		const m = ladderModel(columnarGreekProfile(DELTA_ZERO));
		expect(m.rows.map((r) => r.strike)).toEqual([7000, 7330, 7375, 7420]);
		const r = m.rows[3];
		expect(r.call).toEqual({ value: 0.68, iv: 0.0875, priors: [2.04, 76.67, 0, 0, 0] });
		expect(r.put).toEqual({ value: -698.76, iv: 0.0875, priors: [-631.89, -216.41, 0, 0, 0] });
		// A put IV of 0 is "no quote": a gap in the smile, not a 0 % point.
		expect(m.rows[0].put!.iv).toBeNaN();
		expect(m.net).toBe(false);
		expect(m.levels).toEqual([
			{ id: 'longGamma', label: 'long γ', strike: 7340 },
			{ id: 'shortGamma', label: 'short γ', strike: 7375 },
			{ id: 'majorCall', label: 'major call', strike: 7340 },
			{ id: 'majorPut', label: 'major put', strike: 7425 }
		]);
		expect(m.duplicateStrikes).toBe(0);
	});

	it('never loses or duplicates a strike, and call/put values never swap', () => {
		fc.assert(
			fc.property(profile, (p) => {
				const m = ladderModel(columnarGreekProfile(p));
				const strikes = m.rows.map((r) => r.strike);
				expect(new Set(strikes).size).toBe(strikes.length);
				expect(new Set(strikes)).toEqual(new Set(p.mini_contracts.map((r) => r[0])));
				for (let i = 1; i < strikes.length; i++) expect(strikes[i]).toBeGreaterThan(strikes[i - 1]);
				expect(m.duplicateStrikes).toBe(p.mini_contracts.length - strikes.length);
				// The last row of a strike wins, each side from its own columns.
				const last = new Map(p.mini_contracts.map((r) => [r[0], r]));
				for (const r of m.rows) {
					const src = last.get(r.strike)!;
					expect(r.call.value).toBe(src[3]);
					expect(r.call.priors).toEqual(src[4]);
					expect(r.put!.value).toBe(src[5]);
					expect(r.put!.priors).toEqual(src[6]);
				}
			})
		);
	});

	it('a net profile (null put fields) is one signed value per strike, no made-up put side', () => {
		fc.assert(
			fc.property(fc.array(netRow, { minLength: 1, maxLength: 60 }), (rows) => {
				const p = { ...DELTA_ZERO, mini_contracts: rows };
				const m = ladderModel(columnarGreekProfile(p));
				expect(m.net).toBe(true);
				const last = new Map(rows.map((r) => [r[0], r]));
				for (const r of m.rows) {
					const src = last.get(r.strike)!;
					expect(r.put).toBeNull();
					expect(r.call.value).toBe(src[3]);
					expect(r.call.priors).toEqual(src[4]);
					expect(Number.isNaN(r.putIv) || r.putIv === src[2]).toBe(true);
					expect(Math.abs(r.call.value)).toBeLessThanOrEqual(ladderMagnitude(m.rows, true));
				}
			})
		);
	});

	it('leaves out majors that are not computed (0)', () => {
		fc.assert(
			fc.property(profile, (p) => {
				const m = ladderModel(columnarGreekProfile(p));
				const named = [
					p.major_long_gamma,
					p.major_short_gamma,
					p.major_positive,
					p.major_negative
				].filter((s) => s > 0);
				expect(m.levels.map((l) => l.strike)).toEqual(named);
			})
		);
	});

	it('one magnitude bounds both sides (and the priors when drawn)', () => {
		fc.assert(
			fc.property(profile, fc.boolean(), (p, withPriors) => {
				const m = ladderModel(columnarGreekProfile(p));
				const mag = ladderMagnitude(m.rows, withPriors);
				for (const r of m.rows) {
					expect(Math.abs(r.call.value)).toBeLessThanOrEqual(mag);
					expect(Math.abs(r.put!.value)).toBeLessThanOrEqual(mag);
					if (withPriors) {
						for (const v of [...r.call.priors, ...r.put!.priors])
							expect(Math.abs(v)).toBeLessThanOrEqual(mag);
					}
				}
			})
		);
	});

	it('the automatic window holds `count` consecutive strikes around spot', () => {
		fc.assert(
			fc.property(profile, fc.integer({ min: 1, max: 60 }), (p, count) => {
				const m = ladderModel(columnarGreekProfile(p));
				const w = ladderWindow(m.rows, m.spot, count);
				if (m.rows.length === 0) {
					expect(w).toBeNull();
					return;
				}
				expect(w).not.toBeNull();
				expect(w!.lo).toBeLessThan(w!.hi);
				const inside = m.rows.filter((r) => r.strike >= w!.lo && r.strike <= w!.hi);
				expect(inside.length).toBe(Math.min(Math.max(1, count), m.rows.length));
				// The strike nearest spot is always inside.
				const nearest = [...m.rows].sort(
					(a, b) => Math.abs(a.strike - m.spot) - Math.abs(b.strike - m.spot)
				)[0];
				const d = Math.abs(nearest.strike - m.spot);
				expect(inside.some((r) => Math.abs(r.strike - m.spot) === d)).toBe(true);
			})
		);
	});

	it('a streamed (columnar) profile comes back as the REST profile, and reaches the ladder as columns', () => {
		fc.assert(
			fc.property(profile, (p) => {
				expect(greekProfileFromColumnar(columnarGreekProfile(p))).toEqual(p);
			})
		);
		const update = {
			kind: 'greek' as const,
			group: 'SPX_state_delta_zero',
			ticker: 'SPX',
			timestamp: DELTA_ZERO.timestamp,
			value: columnarGreekProfile(DELTA_ZERO)
		};
		// The worker's columns as they arrived: no rows are built on the main thread.
		expect(greekProfileUpdate(update)).toBe(update.value);
		expect(
			greekProfileUpdate({
				kind: 'spot',
				group: 'SPX_spot',
				ticker: 'SPX',
				timestamp: 1,
				value: { timestamp: 1, ticker: 'SPX', spot: 1 }
			})
		).toBeUndefined();
	});

	it('refuses a malformed profile with the path of the problem', () => {
		const bad = structuredClone(DELTA_ZERO) as unknown as { mini_contracts: unknown[][] };
		bad.mini_contracts[1][5] = 'x';
		expect(() => parseGreekProfile(bad)).toThrow(SchemaError);
		expect(() => parseGreekProfile(bad)).toThrow(/mini_contracts/);
		expect(parseGreekProfile(structuredClone(DELTA_ZERO))).toEqual(DELTA_ZERO);
	});

	it('reads a REST profile into columns once, and a cached one back as it is', () => {
		const columns = parseGreekColumns(structuredClone(DELTA_ZERO));
		expect(columns).toEqual(columnarGreekProfile(DELTA_ZERO));
		const cached = structuredClone(columns);
		expect(parseGreekColumns(cached)).toBe(cached);
		expect(() => parseGreekColumns({ ...cached, putValue: new Float64Array(1) })).toThrow(
			SchemaError
		);
	});
});

describe('ladderWindow on closely listed strikes', () => {
	it('a one-strike window never takes in a neighbour closer than 1 apart', () => {
		const rows = [0.01, 0.02].map((strike) => ({ strike }) as LadderRow);
		const w = ladderWindow(rows, 1, 1)!;
		expect(w.lo).toBeLessThan(w.hi);
		expect(rows.filter((r) => r.strike >= w.lo && r.strike <= w.hi)).toEqual([rows[1]]);
		expect(ladderWindow([{ strike: 5 } as LadderRow], 5, 1)).toEqual({ lo: 4, hi: 6 });
	});
});
