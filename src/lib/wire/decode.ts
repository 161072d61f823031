/**
 * Browser / worker side frame decoder: google.protobuf.Any bytes -> zstd (fzstd, pure JS, no
 * wasm, no eval) -> generated static protobuf code -> REST-shaped values in units.
 *
 * Every failure (bad base64, not an Any, unknown type URL, corrupt zstd, corrupt message, bad
 * JSON) surfaces as WireDecodeError; nothing else escapes.
 */

import type { Outcome } from '../contract/outcome';
import { decompress } from 'fzstd';
import type { FrameKind } from '../contract/hubs';
import {
	gex_profile,
	google,
	option_profile,
	orderflow_proto,
	spot_price
} from '../proto/generated/wire';
import { base64ToBytes } from './base64';
import { describeError, WireDecodeError } from './errors';
import {
	chainFromGex,
	greekProfileFromMessage,
	orderflowFromMessage,
	spotFromMessage
} from './fromMessage';
import type { FramePayloads } from './payloads';
import { kindOfTypeUrl } from './typeUrls';

/** Frames larger than this are refused before decompression (a full SPX chain is ~10 kB). */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;
/** Decompressed size bound, so a forged content size cannot allocate gigabytes. */
export const MAX_INNER_BYTES = 32 * 1024 * 1024;

export type DecodedFrame = {
	[K in FrameKind]: { kind: K; typeUrl: string; value: FramePayloads[K] };
}[FrameKind];

/** The envelope of a frame: its type URL and the still-compressed value. */
export function unwrapAny(bytes: Uint8Array): { typeUrl: string; value: Uint8Array } {
	if (!(bytes instanceof Uint8Array)) throw new WireDecodeError('envelope', 'frame is not bytes');
	if (bytes.length > MAX_FRAME_BYTES) {
		throw new WireDecodeError(
			'envelope',
			`frame of ${bytes.length} bytes exceeds ${MAX_FRAME_BYTES}`
		);
	}
	let any: google.protobuf.Any;
	try {
		any = google.protobuf.Any.decode(bytes);
	} catch (e) {
		throw new WireDecodeError('envelope', describeError(e), { cause: e });
	}
	if (!any.type_url) throw new WireDecodeError('envelope', 'Any without type_url');
	return { typeUrl: any.type_url, value: any.value ?? new Uint8Array(0) };
}

/** zstd frame -> bytes (fzstd), bounded. */
export function inflate(value: Uint8Array): Uint8Array {
	// Bytes 5.. of a single-segment frame header may declare the content size; fzstd allocates
	// it up front, so check the declared size against the bound before calling it.
	const declared = declaredContentSize(value);
	if (declared !== undefined && declared > MAX_INNER_BYTES) {
		throw new WireDecodeError(
			'zstd',
			`declared content size ${declared} exceeds ${MAX_INNER_BYTES}`
		);
	}
	let out: Uint8Array;
	try {
		out = decompress(value);
	} catch (e) {
		throw new WireDecodeError('zstd', describeError(e), { cause: e });
	}
	if (out.length > MAX_INNER_BYTES) {
		throw new WireDecodeError('zstd', `content of ${out.length} bytes exceeds ${MAX_INNER_BYTES}`);
	}
	return out;
}

/**
 * The Frame_Content_Size of a zstd frame header (RFC 8878 3.1.1.1), or undefined when absent,
 * not a zstd frame, or too short (fzstd then reports the error itself).
 */
export function declaredContentSize(b: Uint8Array): number | undefined {
	if (b.length < 6 || b[0] !== 0x28 || b[1] !== 0xb5 || b[2] !== 0x2f || b[3] !== 0xfd) {
		return undefined;
	}
	const fhd = b[4];
	const fcsFlag = fhd >> 6;
	const singleSegment = (fhd >> 5) & 1;
	const dictIdFlag = fhd & 3;
	const fcsBytes = fcsFlag === 0 ? singleSegment : 1 << fcsFlag;
	if (fcsBytes === 0) return undefined;
	let pos = 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][dictIdFlag];
	if (pos + fcsBytes > b.length) return undefined;
	let size = 0;
	for (let i = 0, mul = 1; i < fcsBytes; i++, mul *= 256) size += b[pos++] * mul;
	return fcsBytes === 2 ? size + 256 : size;
}

export function looksLikeJson(inner: Uint8Array): boolean {
	for (const c of inner) {
		if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
		return c === 0x7b || c === 0x5b; // { or [
	}
	return false;
}

const textDecoder = new TextDecoder('utf-8', { fatal: true });

/** Runs a generated decoder, its failures as WireDecodeError('message'). */
export function decodeMessage<T>(decode: (b: Uint8Array) => T, inner: Uint8Array): T {
	try {
		return decode(inner);
	} catch (e) {
		throw new WireDecodeError('message', describeError(e), { cause: e });
	}
}

/** Decodes inflated inner bytes of a given kind. */
export function decodeInner(
	kind: Exclude<FrameKind, 'volume'>,
	inner: Uint8Array
): DecodedFrame['value'] {
	switch (kind) {
		case 'gex':
			return chainFromGex(decodeMessage((b) => gex_profile.Gex.decode(b), inner));
		case 'greek':
			return greekProfileFromMessage(
				decodeMessage((b) => option_profile.OptionProfile.decode(b), inner)
			);
		case 'orderflow':
			return orderflowFromMessage(decodeMessage((b) => orderflow_proto.Orderflow.decode(b), inner));
		case 'spot':
			return spotFromMessage(decodeMessage((b) => spot_price.SpotPrice.decode(b), inner));
	}
}

/** Any bytes -> decoded frame. Throws only WireDecodeError. */
export function decodeFrame(bytes: Uint8Array): DecodedFrame {
	const { typeUrl, value } = unwrapAny(bytes);
	const kind = kindOfTypeUrl(typeUrl);
	if (!kind) throw new WireDecodeError('type', `unknown type_url ${typeUrl.slice(0, 100)}`);
	const inner = inflate(value);
	if (looksLikeJson(inner)) {
		try {
			return { kind: 'volume', typeUrl, value: JSON.parse(textDecoder.decode(inner)) as unknown };
		} catch (e) {
			throw new WireDecodeError('json', describeError(e), { cause: e });
		}
	}
	try {
		return { kind, typeUrl, value: decodeInner(kind, inner) } as DecodedFrame;
	} catch (e) {
		if (e instanceof WireDecodeError) throw e;
		throw new WireDecodeError('message', describeError(e), { cause: e });
	}
}

/** The base64 `data` of a Web PubSub group message -> decoded frame. */
export function decodeBase64Frame(data: string): DecodedFrame {
	return decodeFrame(base64ToBytes(data));
}

/** Non-throwing form for loops that count and skip corrupt frames. */
export function tryDecodeFrame(
	bytes: Uint8Array
): Outcome<{ frame: DecodedFrame }, WireDecodeError> {
	try {
		return { ok: true, frame: decodeFrame(bytes) };
	} catch (e) {
		return {
			ok: false,
			error:
				e instanceof WireDecodeError
					? e
					: new WireDecodeError('message', describeError(e), { cause: e })
		};
	}
}
