/**
 * An independent decoder for the tests: protobufjs on the repo's .proto files and fzstd, not
 * the service's own codec, so a frame that decodes here decodes for any client.
 */
import { decompress } from 'fzstd';
import protobuf from 'protobufjs';
import { fileURLToPath } from 'node:url';

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
