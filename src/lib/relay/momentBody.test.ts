/** The moment body round-trips any chain (property), gaps as NaN, and refuses a bad one. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { columnarGex } from '../wire/columnar';
import { chainArb } from '../wire/arbitraries.test-support';
import { decodeMomentBody, encodeMomentBody, MomentBodyError } from './momentBody';

/** A two-strike chain, the second strike with more priors than the first (a gap in its row). */
const TINY = {
	timestamp: 1,
	ticker: 'SPX',
	spot: 1,
	zero_gamma: 1,
	major_pos_vol: 1,
	major_pos_oi: 1,
	major_neg_vol: 1,
	major_neg_oi: 1,
	sum_gex_vol: 1,
	sum_gex_oi: 1,
	delta_risk_reversal: 1,
	min_dte: 0,
	sec_min_dte: 1,
	max_priors: [],
	strikes: [
		[100, 1, 2, [0.5]],
		[105, 3, 4, [0.25, 0.125]]
	]
} as unknown as Parameters<typeof columnarGex>[0];

describe('moment body', () => {
	it('round-trips every field of a chain (property)', () => {
		fc.assert(
			fc.property(chainArb, fc.integer({ min: 0, max: 2 ** 31 }), (chain, at) => {
				const gex = columnarGex(chain);
				const back = decodeMomentBody(encodeMomentBody({ at, chain: gex }));
				expect(back.at).toBe(at);
				for (const [k, v] of Object.entries(gex)) {
					const got = (back.chain as unknown as Record<string, unknown>)[k];
					if (ArrayBuffer.isView(v)) {
						expect(got, k).toBeInstanceOf(Float64Array);
						// JSON has no -0: a zero comes back a zero.
						const zeroed = (a: Float64Array) => [...a].map((x) => (x === 0 ? 0 : x));
						expect(zeroed(got as Float64Array), k).toEqual(zeroed(v as Float64Array));
					} else expect(got === 0 ? 0 : got, k).toEqual(v === 0 ? 0 : v);
				}
			})
		);
	});

	it('keeps a gap (NaN) a gap', () => {
		const gex = columnarGex(TINY);
		const back = decodeMomentBody(encodeMomentBody({ at: 1, chain: gex }));
		expect([...back.chain.priors].map((v) => (Number.isNaN(v) ? 'gap' : v))).toEqual(
			[...gex.priors].map((v) => (Number.isNaN(v) ? 'gap' : v))
		);
		expect([...back.chain.priors].some(Number.isNaN)).toBe(true);
	});

	it('refuses what is not a moment', () => {
		const good = JSON.parse(
			encodeMomentBody({
				at: 1,
				chain: columnarGex(TINY)
			})
		);
		const bad: [string, RegExp][] = [
			['not json', /not JSON/],
			['null', /not a moment/],
			[JSON.stringify({ at: 'x', chain: good.chain }), /not a moment/],
			[JSON.stringify({ at: 1, chain: 'x' }), /not a moment/],
			[JSON.stringify({ at: 1, chain: { ...good.chain, ticker: 3 } }), /no ticker/],
			[JSON.stringify({ at: 1, chain: { ...good.chain, gexVol: [] } }), /GEX list/],
			[JSON.stringify({ at: 1, chain: { ...good.chain, gexOi: [1] } }), /GEX list/],
			[JSON.stringify({ at: 1, chain: { ...good.chain, strikes: 'x' } }), /strikes is not a list/],
			[JSON.stringify({ at: 1, chain: { ...good.chain, spot: '1' } }), /spot is not a number/],
			[
				JSON.stringify({ at: 1, chain: { ...good.chain, gexOi: [1, '2'] } }),
				/gexOi\[1\] is not a number/
			],
			[JSON.stringify({ at: 1, chain: { ...good.chain, priorCount: 3 } }), /priors are not/]
		];
		for (const [text, why] of bad) {
			expect(() => decodeMomentBody(text), text).toThrow(MomentBodyError);
			expect(() => decodeMomentBody(text), text).toThrow(why);
		}
	});
});
