import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ORDERFLOW_FIELDS } from '../contract/orderflowFields';
import {
	MAX_PRIORS_SCALES,
	MINI_CONTRACT_SCALES,
	S1000,
	STRIKE_SCALES,
	U100,
	fromWire,
	toWire,
	type FieldScale
} from '../contract/scaling';
import {
	chainArb,
	greekProfileArb,
	orderflowArb,
	spotArb,
	spxChain
} from './arbitraries.test-support';
import { bytesToBase64 } from './base64';
import {
	chainFromColumnar,
	columnarGex,
	columnarGexFromMessage,
	columnarGreekProfile,
	transferables
} from './columnar';
import { decodeColumnarFrame } from './columnarDecode';
import { decodeBase64Frame, decodeFrame, inflate, tryDecodeFrame, unwrapAny } from './decode';
import { chainFromGex } from './fromMessage';
import { gex_profile } from '../proto/generated/wire';
import { encodeFrame, encodeInner, initWireEncoder, wrapAny } from './encode';
import { WireDecodeError } from './errors';
import { TYPE_URLS } from './typeUrls';

beforeAll(async () => {
	await initWireEncoder();
});

const q = (v: number, s: FieldScale) => fromWire(toWire(v, s), s);

describe('frame round trip', () => {
	it('Gex: every field comes back truncated to its scale', () => {
		fc.assert(
			fc.property(chainArb, (chain) => {
				const frame = decodeFrame(encodeFrame('gex', chain));
				expect(frame.kind).toBe('gex');
				expect(frame.typeUrl).toContain('proto.gex');
				const back = frame.value as typeof chain;
				expect(back.timestamp).toBe(chain.timestamp);
				expect(back.ticker).toBe(chain.ticker);
				expect(back.min_dte).toBe(chain.min_dte);
				expect(back.spot).toBe(q(chain.spot, U100));
				expect(Math.abs(back.spot - chain.spot)).toBeLessThan(0.01 + 1e-6);
				expect(back.sum_gex_vol).toBe(q(chain.sum_gex_vol, S1000));
				expect(back.strikes).toEqual(
					chain.strikes.map(([k, v, o, p]) => [
						q(k, STRIKE_SCALES.strike_price),
						q(v, STRIKE_SCALES.value_1),
						q(o, STRIKE_SCALES.value_2),
						p.map((x) => q(x, STRIKE_SCALES.prior))
					])
				);
				expect(back.max_priors).toEqual(
					chain.max_priors.map(([k, v]) => [
						q(k, MAX_PRIORS_SCALES.first_value),
						q(v, MAX_PRIORS_SCALES.second_value)
					])
				);
			}),
			{ numRuns: 60 }
		);
	});

	it('greek profile: put values and priors carry no scale', () => {
		fc.assert(
			fc.property(greekProfileArb, (profile) => {
				const back = decodeFrame(encodeFrame('greek', profile)).value as typeof profile;
				expect(back.major_positive).toBe(q(profile.major_positive, U100));
				expect(back.mini_contracts).toEqual(
					profile.mini_contracts.map(([k, ci, pi, cv, cp, pv, pp]) => [
						q(k, MINI_CONTRACT_SCALES.strike),
						q(ci, MINI_CONTRACT_SCALES.call_ivol),
						q(pi, MINI_CONTRACT_SCALES.put_ivol),
						q(cv, MINI_CONTRACT_SCALES.call_cvolume),
						cp.map((x) => q(x, MINI_CONTRACT_SCALES.call_cvolume_prior)),
						pv === null ? null : toWire(pv, MINI_CONTRACT_SCALES.put_cvolume),
						pp === null ? null : pp.map((x) => toWire(x, MINI_CONTRACT_SCALES.put_cvolume_prior))
					])
				);
			}),
			{ numRuns: 60 }
		);
	});

	it('orderflow: REST names survive the proto renaming', () => {
		fc.assert(
			fc.property(orderflowArb, (body) => {
				const back = decodeFrame(encodeFrame('orderflow', body)).value as typeof body;
				for (const f of ORDERFLOW_FIELDS) expect(back[f.rest]).toBe(q(body[f.rest], f.scale));
				expect(back.spot).toBe(q(body.spot, U100));
			}),
			{ numRuns: 60 }
		);
	});

	it('spot, and volume as zstd JSON', () => {
		fc.assert(
			fc.property(spotArb, (spot) => {
				const back = decodeFrame(encodeFrame('spot', spot));
				expect(back.kind).toBe('spot');
				expect(back.value).toEqual({ ...spot, spot: q(spot.spot, U100) });
			})
		);
		const volume = { ticker: 'SPX', timestamp: 5, strikes: [[7000, 12, 30]] };
		const frame = decodeBase64Frame(bytesToBase64(encodeFrame('volume', volume)));
		expect(frame).toEqual({ kind: 'volume', typeUrl: TYPE_URLS.volume, value: volume });
	});
});

describe('clamping at the range edges', () => {
	it('clamps negative levels to 0 and sums to the sint32 limits', () => {
		const chain = { ...spxChain(3), spot: -1, zero_gamma: 5e8, sum_gex_vol: 3e6, sum_gex_oi: -3e6 };
		const back = decodeFrame(encodeFrame('gex', chain)).value as typeof chain;
		expect(back.spot).toBe(0);
		expect(back.zero_gamma).toBe(4294967295 / 100);
		expect(back.sum_gex_vol).toBe(2147483647 / 1000);
		expect(back.sum_gex_oi).toBe(-2147483648 / 1000);
	});
});

describe('corrupt frames', () => {
	it('arbitrary bytes only ever raise WireDecodeError', () => {
		fc.assert(
			fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
				const r = tryDecodeFrame(bytes);
				if (!r.ok) expect(r.error).toBeInstanceOf(WireDecodeError);
				try {
					decodeFrame(bytes);
				} catch (e) {
					expect(e).toBeInstanceOf(WireDecodeError);
				}
			}),
			{ numRuns: 500 }
		);
	});

	it('bit flips and truncations of a real frame only raise WireDecodeError', () => {
		const good = encodeFrame('gex', spxChain(50));
		fc.assert(
			fc.property(
				fc.nat(good.length - 1),
				fc.integer({ min: 1, max: 255 }),
				fc.boolean(),
				(pos, mask, truncate) => {
					const bad = truncate ? good.slice(0, pos) : good.slice();
					if (!truncate) bad[pos] ^= mask;
					try {
						decodeFrame(bad);
					} catch (e) {
						expect(e).toBeInstanceOf(WireDecodeError);
					}
				}
			),
			{ numRuns: 400 }
		);
	});

	it('names the failing stage', () => {
		expect(() => decodeBase64Frame('%%%')).toThrow(/wire base64/);
		expect(() =>
			decodeFrame(wrapAny('type.googleapis.com/proto.unknown', new Uint8Array(4)))
		).toThrow(/wire type/);
		expect(() => decodeFrame(wrapAny(TYPE_URLS.gex, new Uint8Array([1, 2, 3])))).toThrow(
			/wire zstd/
		);
		// A zstd header declaring a 4 GB content size is refused before allocation.
		const bomb = new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0xa0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0]);
		expect(() => decodeFrame(wrapAny(TYPE_URLS.gex, bomb))).toThrow(/exceeds/);
	});
});

describe('columnar form', () => {
	it('round-trips the chain and exposes transferable buffers', () => {
		fc.assert(
			fc.property(chainArb, (chain) => {
				const col = columnarGex(chain);
				expect(col.strikes.length).toBe(chain.strikes.length);
				expect(chainFromColumnar(col)).toEqual(chain);
				expect(new Set(transferables(col)).size).toBe(5);
			}),
			{ numRuns: 50 }
		);
	});

	it('flattens greek profiles', () => {
		fc.assert(
			fc.property(greekProfileArb, (p) => {
				const col = columnarGreekProfile(p);
				p.mini_contracts.forEach((row, i) => {
					expect(col.strikes[i]).toBe(row[0]);
					// A null put side is NaN in the columns (no value), never 0.
					expect(col.putValue[i]).toBe(row[5] ?? Number.NaN);
					expect(
						Array.from(
							col.callPriors.subarray(
								i * col.callPriorCount,
								i * col.callPriorCount + row[4].length
							)
						)
					).toEqual(row[4]);
				});
			}),
			{ numRuns: 50 }
		);
	});

	it('columns straight from the message equal columns from the REST rows (property)', () => {
		const same = (a: ReturnType<typeof columnarGex>, b: ReturnType<typeof columnarGex>) => {
			// toEqual treats NaN as equal to NaN (prior padding) and compares typed arrays by value;
			// Object.is on every element also tells -0 from 0.
			expect(a).toEqual(b);
			for (const k of ['strikes', 'gexVol', 'gexOi', 'priors', 'maxPriors'] as const) {
				expect(Array.from(a[k]).every((v, i) => Object.is(v, b[k][i]))).toBe(true);
			}
		};
		fc.assert(
			fc.property(chainArb, (chain) => {
				const message = gex_profile.Gex.decode(inflate(unwrapAny(encodeFrame('gex', chain)).value));
				same(columnarGexFromMessage(message), columnarGex(chainFromGex(message)));
			}),
			{ numRuns: 100 }
		);
		// A message missing every optional part.
		const bare = gex_profile.Gex.decode(
			gex_profile.Gex.encode({ strikes: [{}, { priors: {} }] }).finish()
		);
		same(columnarGexFromMessage(bare), columnarGex(chainFromGex(bare)));
	});

	it('decodes frames straight to the columnar form', () => {
		const chain = spxChain(20);
		const frame = decodeColumnarFrame(encodeFrame('gex', chain));
		expect(frame.kind).toBe('gex');
		if (frame.kind === 'gex')
			expect(Array.from(frame.value.strikes)).toEqual(chain.strikes.map((r) => r[0]));
		const spot = decodeColumnarFrame(
			encodeFrame('spot', { timestamp: 1, ticker: 'SPX', spot: 1.5 })
		);
		expect(spot).toMatchObject({ kind: 'spot', value: { spot: 1.5 } });
	});

	it('a 400-strike chain compresses', () => {
		const chain = spxChain(400);
		const raw = encodeInner('gex', chain);
		const frame = encodeFrame('gex', chain);
		expect(frame.length).toBeLessThan(raw.length);
	});
});
