/**
 * fast-check arbitraries of REST-shaped payloads, shared by the wire tests. Values stay inside
 * each field's wire range unless a test asks for edges.
 */
import fc from 'fast-check';
import { documentedChain } from '../contract/fixtures.test-support';
import { ORDERFLOW_FIELDS } from '../contract/orderflowFields';
import type { ClassicChain, GreekProfile, OrderflowBody } from '../contract/schemas';
import type { SpotPayload } from './payloads';

const d = (min: number, max: number) =>
	fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
const level = d(0, 40_000_000);
const x100 = d(-21_000_000, 21_000_000);
const x1000 = d(-2_100_000, 2_100_000);
const int = fc.integer({ min: -1000, max: 1_000_000 });
const ts = fc.integer({ min: 0, max: 4_102_444_800 });
const ticker = fc.constantFrom('SPX', 'ES_SPX', 'AAPL', 'XSP');

export const chainArb: fc.Arbitrary<ClassicChain> = fc.record({
	timestamp: ts,
	ticker,
	min_dte: int,
	sec_min_dte: int,
	spot: level,
	zero_gamma: level,
	major_pos_vol: level,
	major_pos_oi: level,
	major_neg_vol: level,
	major_neg_oi: level,
	strikes: fc.array(fc.tuple(level, x100, x100, fc.array(x100, { maxLength: 5 })), {
		maxLength: 40
	}),
	sum_gex_vol: x1000,
	sum_gex_oi: x1000,
	delta_risk_reversal: x1000,
	max_priors: fc.array(fc.tuple(x100, x1000), { minLength: 6, maxLength: 6 })
});

export const greekProfileArb: fc.Arbitrary<GreekProfile> = fc.record({
	timestamp: ts,
	ticker,
	spot: level,
	min_dte: int,
	sec_min_dte: int,
	major_positive: level,
	major_negative: level,
	major_long_gamma: level,
	major_short_gamma: level,
	mini_contracts: fc.array(
		fc.tuple(
			level,
			d(0, 4_000_000),
			d(0, 4_000_000),
			x100,
			fc.array(x100, { maxLength: 5 }),
			// Null put fields: the live service's net-value greek profiles.
			fc.option(d(-2e9, 2e9), { nil: null }),
			fc.option(fc.array(d(-2e9, 2e9), { maxLength: 5 }), { nil: null })
		),
		{ maxLength: 30 }
	)
});

export const orderflowArb: fc.Arbitrary<OrderflowBody> = fc
	.tuple(
		ts,
		ticker,
		level,
		fc.array(x100, { minLength: ORDERFLOW_FIELDS.length, maxLength: ORDERFLOW_FIELDS.length }),
		fc.array(level, { minLength: 8, maxLength: 8 })
	)
	.map(([timestamp, t, spot, metrics, levels]) => {
		const body: Record<string, number | string> = { timestamp, ticker: t, spot };
		ORDERFLOW_FIELDS.forEach(
			(f, i) => (body[f.rest] = f.scale.type === 'uint32' ? levels[i % 8] : metrics[i])
		);
		return body as OrderflowBody;
	});

export const spotArb: fc.Arbitrary<SpotPayload> = fc.record(
	{
		timestamp: ts,
		ticker,
		spot: level,
		source_timestamp_ms: fc.integer({ min: 0, max: 4_102_444_800_000 })
	},
	{ requiredKeys: ['timestamp', 'ticker', 'spot'] }
);

/** A realistic 400-strike SPX chain on the documented chain's levels (bench and size tests). */
export function spxChain(strikeCount = 400, seed = 1): ClassicChain {
	let s = seed;
	const rnd = () => ((s = (s * 16807) % 2147483647) / 2147483647) * 2 - 1;
	const base = documentedChain();
	const spot = base.spot;
	const strikes: ClassicChain['strikes'] = [];
	for (let i = 0; i < strikeCount; i++) {
		const k = 6140 + i * 5;
		const w = Math.exp(-(((k - spot) / 120) ** 2));
		const v = Math.round((rnd() * 500 * w + rnd() * 5) * 100) / 100;
		const oi = Math.round((rnd() * 300 * w + rnd() * 3) * 100) / 100;
		strikes.push([
			k,
			v,
			oi,
			[1, 2, 3, 4, 5].map((j) => Math.round((v + rnd() * j * 10) * 100) / 100)
		]);
	}
	return { ...base, ticker: 'SPX', strikes };
}

/**
 * The SPX orderflow payload of second `s` of a session opening at `open` (bench and e2e): one
 * payload of orderflowArb's (seed 26) with cumulative flows that wander through the day, in
 * whole cents as the wire carries them.
 */
export function spxOrderflow(open: number, s: number): OrderflowBody {
	spxOrderflowTemplate ??= fc.sample(orderflowArb, { numRuns: 1, seed: 26 })[0];
	const body: Record<string, number | string> = {
		...spxOrderflowTemplate,
		ticker: 'SPX',
		timestamp: open + s,
		spot: 5800 + Math.round(2000 * Math.sin(s / 900)) / 100,
		dexoflow: Math.round(s * 3 + 500 * Math.sin(s / 300)),
		gexoflow: Math.round(-s + 300 * Math.cos(s / 500)),
		cvroflow: s * 2,
		one_dexoflow: Math.round(s / 2),
		one_gexoflow: -Math.round(s / 3),
		one_cvroflow: s
	};
	return body as OrderflowBody;
}
let spxOrderflowTemplate: OrderflowBody | undefined;
