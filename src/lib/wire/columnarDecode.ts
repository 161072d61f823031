/**
 * Any bytes -> the columnar form of a frame (./columnar), the decode workers' and the server's
 * path: chains go message -> columns without the REST-shaped object in between. Apart from
 * ./columnar so the page's scripts, which read columnar forms, do not load the codec
 * (protobufjs, the generated messages, the zstd decoder: ~70 KB and their start-up).
 */
import { gex_profile } from '../proto/generated/wire';
import {
	columnarGex,
	columnarGexFromMessage,
	columnarGreekProfile,
	type ColumnarGex,
	type ColumnarGreekProfile
} from './columnar';
import {
	decodeFrame,
	decodeMessage,
	inflate,
	looksLikeJson,
	unwrapAny,
	type DecodedFrame
} from './decode';
import { kindOfTypeUrl } from './typeUrls';

/** A decoded frame in the form the page consumes: typed arrays for ladders, plain values otherwise. */
export type ColumnarFrame =
	| { kind: 'gex'; typeUrl: string; value: ColumnarGex }
	| { kind: 'greek'; typeUrl: string; value: ColumnarGreekProfile }
	| Exclude<DecodedFrame, { kind: 'gex' } | { kind: 'greek' }>;

/** Any bytes -> columnar frame (throws only WireDecodeError, like decodeFrame). */
export function decodeColumnarFrame(bytes: Uint8Array): ColumnarFrame {
	// Chains (the bulk of a stream and of every backfill) go message -> columns directly.
	const { typeUrl, value } = unwrapAny(bytes);
	if (kindOfTypeUrl(typeUrl) === 'gex') {
		const inner = inflate(value);
		if (!looksLikeJson(inner)) {
			const message = decodeMessage((b) => gex_profile.Gex.decode(b), inner);
			return { kind: 'gex', typeUrl, value: columnarGexFromMessage(message) };
		}
	}
	const frame = decodeFrame(bytes);
	switch (frame.kind) {
		case 'gex':
			return { kind: 'gex', typeUrl: frame.typeUrl, value: columnarGex(frame.value) };
		case 'greek':
			return { kind: 'greek', typeUrl: frame.typeUrl, value: columnarGreekProfile(frame.value) };
		default:
			return frame;
	}
}
