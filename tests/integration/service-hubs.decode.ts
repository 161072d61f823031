/**
 * An independent decoder for the tests: protobufjs on the repo's .proto files and fzstd, not
 * the service's own codec, so a frame that decodes here decodes for any client.
 */
import { decompress } from 'fzstd';
import protobuf from 'protobufjs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import {
	GEX_SCALES,
	MAX_PRIORS_SCALES,
	STRIKE_SCALES,
	toWire
} from '../../src/lib/contract/scaling';

const protoDir = fileURLToPath(new URL('../../proto/', import.meta.url));
const root = new protobuf.Root().loadSync(
	[
		'google/protobuf/any.proto',
		'gex_profile.proto',
		'option_profile.proto',
		'orderflow.proto',
		'spot_price.proto'
	].map((f) => protoDir + f),
	{ keepCase: true }
);
const Any = root.lookupType('google.protobuf.Any');
const TYPES: [string, protobuf.Type][] = [
	['proto.gex', root.lookupType('gex_profile.Gex')],
	['proto.greek', root.lookupType('option_profile.OptionProfile')],
	['proto.orderflow', root.lookupType('orderflow_proto.Orderflow')],
	['proto.spot', root.lookupType('spot_price.SpotPrice')]
];

export interface DecodedFrame {
	typeUrl: string;
	/** The inner message as a plain object (int64 as numbers, defaults filled), or parsed JSON. */
	value: Record<string, unknown>;
	/** Decompressed inner bytes. */
	inner: Uint8Array;
}

/** Decodes the base64 `data` of a group message; throws on anything malformed. */
export function decodeFrame(base64: string): DecodedFrame {
	const any = Any.decode(Buffer.from(base64, 'base64')) as unknown as {
		type_url?: string;
		typeUrl?: string;
		value: Uint8Array;
	};
	const typeUrl = any.type_url ?? any.typeUrl ?? '';
	const inner = decompress(any.value);
	const type = TYPES.find(([needle]) => typeUrl.includes(needle))?.[1];
	if (!type) {
		// volume_zero / volume_one frames are zstd JSON.
		return { typeUrl, value: JSON.parse(Buffer.from(inner).toString('utf8')), inner };
	}
	const message = type.decode(inner);
	const value = type.toObject(message, { longs: Number, defaults: true, arrays: true }) as Record<
		string,
		unknown
	>;
	return { typeUrl, value, inner };
}

type Row = [number, number, number, number[]];

/** A decoded proto.gex frame carries exactly the wire integers of the REST chain `snap`. */
export function expectGexFrameMatchesRest(
	frame: DecodedFrame,
	snap: Record<string, unknown>
): void {
	expect(frame.typeUrl).toContain('proto.gex');
	const g = frame.value as Record<string, unknown> & {
		strikes: {
			strike_price: number;
			value_1: number;
			value_2: number;
			priors?: { values: number[] };
		}[];
		max_priors: { tuples: { first_value: number; second_value: number }[] };
	};
	expect(g.ticker).toBe(snap.ticker);
	for (const field of Object.keys(GEX_SCALES) as (keyof typeof GEX_SCALES)[]) {
		expect(g[field], field).toBe(toWire(snap[field] as number, GEX_SCALES[field]));
	}
	const rows = snap.strikes as Row[];
	expect(g.strikes.length).toBe(rows.length);
	rows.forEach(([strike, byVol, byOi, priors], i) => {
		const s = g.strikes[i];
		expect(s.strike_price).toBe(toWire(strike, STRIKE_SCALES.strike_price));
		expect(s.value_1).toBe(toWire(byVol, STRIKE_SCALES.value_1));
		expect(s.value_2).toBe(toWire(byOi, STRIKE_SCALES.value_2));
		expect(s.priors?.values).toEqual(priors.map((p) => toWire(p, STRIKE_SCALES.prior)));
	});
	const maxPriors = snap.max_priors as [number, number][];
	expect(g.max_priors.tuples).toEqual(
		maxPriors.map(([s, v]) => ({
			first_value: toWire(s, MAX_PRIORS_SCALES.first_value),
			second_value: toWire(v, MAX_PRIORS_SCALES.second_value)
		}))
	);
}
