/**
 * The observed profile's shortcuts give the bits of the transforms they skip: a State chain's
 * JSON from its classic chain's text (observedStateChainJson), and an observed greek profile
 * built directly (greekProfileValue's `observed`), each against the transform of the full value.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { greekProfileValue, type GexChainValue } from './categoryPayloads';
import { viewFormatAt } from './live';
import { observedGreekProfile, observedStateChain, observedStateChainJson } from './profiles';
import { GREEK_NAMES, TickerDay } from './tickerDay';
import { categoryValue } from './tickerSnapshot';

/** Any double JSON may meet: -0, integers, exponents both ways, NaN and infinities (null). */
const num = fc.oneof(
	fc.double(),
	fc.integer(),
	fc.constantFrom(-0, 0, 1e21, -1.5e-7, 5e-324, 1.7976931348623157e308, 123456789.125)
);

const chain = fc.record({
	timestamp: fc.integer({ min: 0 }),
	ticker: fc.stringMatching(/^[A-Z][A-Z_]{0,7}$/),
	min_dte: fc.nat(),
	sec_min_dte: fc.nat(),
	spot: num,
	zero_gamma: num,
	major_pos_vol: num,
	major_pos_oi: num,
	major_neg_vol: num,
	major_neg_oi: num,
	strikes: fc.array(fc.tuple(num, num, num, fc.array(num, { maxLength: 5 })), { maxLength: 40 }),
	sum_gex_vol: num,
	sum_gex_oi: num,
	delta_risk_reversal: num,
	max_priors: fc.array(fc.tuple(num, num), { maxLength: 6 })
}) as fc.Arbitrary<GexChainValue>;

describe('observed profile shortcuts', () => {
	it('observedStateChainJson is JSON.stringify(observedStateChain(chain))', () => {
		fc.assert(
			fc.property(chain, (v) => {
				expect(observedStateChainJson(JSON.stringify(v))).toBe(
					JSON.stringify(observedStateChain(v))
				);
			}),
			{ numRuns: 2000 }
		);
	});

	it("an observed greek profile built directly has observedGreekProfile's bits", () => {
		const [seed, date] = [11, '2026-11-18'];
		const day = new TickerDay(seed, 'SPX', date, 'rings');
		let compared = 0;
		while (day.tick < 2000 && day.step('rings')) {
			if (day.tick % 97 !== 0) continue;
			const view = viewFormatAt(seed, 'SPX', date, day.tick);
			for (const set of ['zero', 'one'] as const) {
				for (const greek of GREEK_NAMES) {
					const full = greekProfileValue(day, day.subsets[set], greek);
					const direct = categoryValue(day, `${greek}_${set}`, view, 'observed');
					expect(JSON.stringify(direct)).toBe(JSON.stringify(observedGreekProfile(full)));
					compared++;
				}
			}
		}
		expect(compared).toBeGreaterThan(100);
	});
});
