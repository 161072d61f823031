/**
 * The worker's decode path against independent references: protobufjs reflection on the
 * repo's .proto files (not the generated static code the worker uses) and @bokuweb/zstd-wasm
 * (the reference zstd, not fzstd).
 */
import { compress, decompress, init } from '@bokuweb/zstd-wasm';
import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { chainArb, greekProfileArb, spotArb, spxChain } from '../../wire/arbitraries.test-support';
import { inflate } from '../../wire/decode';
import { encodeFrame, initWireEncoder, wrapAny } from '../../wire/encode';
import { TYPE_URLS } from '../../wire/typeUrls';
import { decodeRelayMessage } from './relayDecode';
import { encodeRelayFrame } from '../../relay/relayFrame';

const protoDir = fileURLToPath(new URL('../../../../proto/', import.meta.url));
const root = new protobuf.Root().loadSync(
	[
		'google/protobuf/any.proto',
		'gex_profile.proto',
		'option_profile.proto',
		'spot_price.proto'
	].map((f) => protoDir + f),
	{ keepCase: true }
);
const AnyType = root.lookupType('google.protobuf.Any');
const GexType = root.lookupType('gex_profile.Gex');
const OptionProfileType = root.lookupType('option_profile.OptionProfile');

type RefGex = {
	timestamp: number;
	ticker: string;
	spot: number;
	zero_gamma: number;
	strikes: {
		strike_price: number;
		value_1: number;
		value_2: number;
		priors?: { values: number[] };
	}[];
	sum_gex_vol: number;
};

/** Reference decode: protobufjs reflection + zstd-wasm. */
function referenceInner(any: Uint8Array): Uint8Array {
	const envelope = AnyType.toObject(AnyType.decode(any)) as { value: Uint8Array };
	return decompress(envelope.value);
}

beforeAll(async () => {
	await init();
	await initWireEncoder();
});

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

describe('stream decode path', () => {
	it('decodes Gex frames into columnar arrays equal to the reference decode, scaled', () => {
		fc.assert(
			fc.property(chainArb, (chain) => {
				const any = encodeFrame('gex', chain);
				const out = decodeRelayMessage(encodeRelayFrame('SPX_classic_gex_full', any));
				expect(out.ok).toBe(true);
				if (!out.ok || out.update.kind !== 'gex') throw new Error('expected gex');
				const ref = GexType.toObject(GexType.decode(referenceInner(any)), {
					longs: Number,
					defaults: true,
					arrays: true
				}) as RefGex;
				const c = out.update.value;
				expect(out.update.group).toBe('SPX_classic_gex_full');
				expect(c.timestamp).toBe(ref.timestamp);
				expect(c.ticker).toBe(ref.ticker);
				expect(close(c.spot, ref.spot / 100)).toBe(true);
				expect(close(c.zeroGamma, ref.zero_gamma / 100)).toBe(true);
				expect(close(c.sumGexVol, ref.sum_gex_vol / 1000)).toBe(true);
				expect(c.strikes).toBeInstanceOf(Float64Array);
				expect(c.strikes.length).toBe(ref.strikes.length);
				ref.strikes.forEach((s, i) => {
					expect(close(c.strikes[i], s.strike_price / 100)).toBe(true);
					expect(close(c.gexVol[i], s.value_1 / 100)).toBe(true);
					expect(close(c.gexOi[i], s.value_2 / 100)).toBe(true);
					(s.priors?.values ?? []).forEach((p, j) =>
						expect(close(c.priors[i * c.priorCount + j], p / 100)).toBe(true)
					);
				});
			}),
			{ numRuns: 60 }
		);
	});

	it('decodes greek profiles and spot messages like the reference', () => {
		fc.assert(
			fc.property(greekProfileArb, spotArb, (profile, spot) => {
				const any = encodeFrame('greek', profile);
				const out = decodeRelayMessage(encodeRelayFrame('SPX_state_gamma_zero', any));
				if (!out.ok || out.update.kind !== 'greek') throw new Error('expected greek');
				const profileCols = out.update.value;
				const ref = OptionProfileType.toObject(OptionProfileType.decode(referenceInner(any)), {
					longs: Number,
					defaults: true,
					arrays: true
				}) as { spot: number; mini_contracts: { strike: number; call_ivol: number }[] };
				expect(close(profileCols.spot, ref.spot / 100)).toBe(true);
				ref.mini_contracts.forEach((m, i) => {
					expect(close(profileCols.strikes[i], m.strike / 100)).toBe(true);
					expect(close(profileCols.callIvol[i], m.call_ivol / 1000)).toBe(true);
				});
				const s = decodeRelayMessage(encodeRelayFrame('SPX_spot', encodeFrame('spot', spot)));
				if (!s.ok || s.update.kind !== 'spot') throw new Error('expected spot');
				expect(s.update.ticker).toBe(spot.ticker);
				expect(s.update.timestamp).toBe(spot.timestamp);
			}),
			{ numRuns: 40 }
		);
	});

	it('fzstd inflates exactly what the reference zstd decompresses', () => {
		fc.assert(
			fc.property(
				fc.uint8Array({ maxLength: 4096 }),
				fc.integer({ min: 1, max: 19 }),
				(bytes, level) => {
					const z = compress(bytes, level);
					expect(Buffer.from(inflate(z)).equals(Buffer.from(decompress(z)))).toBe(true);
				}
			),
			{ numRuns: 80 }
		);
	});

	it('a 400-strike chain decodes to 400 strikes', () => {
		const out = decodeRelayMessage(
			encodeRelayFrame('SPX_classic_gex_full', encodeFrame('gex', spxChain(400)))
		);
		expect(out.ok && out.update.kind === 'gex' && out.update.value.strikes.length).toBe(400);
	});

	it('counts corrupt and unknown frames instead of throwing', () => {
		const good = encodeRelayFrame('SPX_classic_gex_full', encodeFrame('gex', spxChain(40)));
		fc.assert(
			fc.property(
				fc.integer({ min: 3, max: good.length - 1 }),
				fc.integer({ min: 0, max: 255 }),
				fc.integer({ min: 3, max: good.length }),
				(pos, byte, cut) => {
					const mutated = good.slice(0, cut);
					if (pos < mutated.length) mutated[pos] = byte;
					const out = decodeRelayMessage(mutated);
					if (!out.ok) expect(['corrupt', 'unknown']).toContain(out.reason);
				}
			),
			{ numRuns: 300 }
		);
		fc.assert(
			fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
				const out = decodeRelayMessage(bytes);
				expect(typeof out.ok).toBe('boolean');
			})
		);
		const unknownType = wrapAny(
			'type.googleapis.com/proto.future',
			compress(new Uint8Array([8, 1]), 3)
		);
		expect(decodeRelayMessage(encodeRelayFrame('SPX_classic_gex_full', unknownType))).toMatchObject(
			{
				ok: false,
				reason: 'unknown'
			}
		);
		const notZstd = wrapAny(TYPE_URLS.gex, new Uint8Array([1, 2, 3, 4, 5, 6]));
		expect(decodeRelayMessage(encodeRelayFrame('SPX_classic_gex_full', notZstd))).toMatchObject({
			ok: false,
			reason: 'corrupt'
		});
		const v9 = good.slice();
		v9[0] = 9;
		expect(decodeRelayMessage(v9)).toMatchObject({ ok: false, reason: 'unknown' });
	});
});
