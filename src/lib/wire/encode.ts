/**
 * Server-side frame encoder (the embedded service's hubs): REST-shaped payload -> inner
 * protobuf message (or JSON for volume) -> zstd frame -> google.protobuf.Any bytes, which the
 * hub base64-encodes into the Web PubSub group message.
 *
 * zstd comes from @bokuweb/zstd-wasm (Node 20's zlib has no zstd; the wasm build installs from
 * the registry alone). Its module must be instantiated once: await initWireEncoder() before the
 * first encodeFrame().
 */

import { compress, init } from '@bokuweb/zstd-wasm';
import type { FrameKind } from '../contract/hubs';
import {
	gex_profile,
	google,
	option_profile,
	orderflow_proto,
	spot_price
} from '../proto/generated/wire';
import type { FramePayloads } from './payloads';
import { gexMessage, optionProfileMessage, orderflowMessage, spotMessage } from './toMessage';
import { TYPE_URLS } from './typeUrls';

/** zstd level 3 (the library default) compresses a 400-strike Gex frame well in well under 1 ms. */
export const DEFAULT_ZSTD_LEVEL = 3;

let initializing: Promise<void> | undefined;
let ready = false;

/** Instantiates the zstd wasm module; safe to call many times (one instantiation). */
export function initWireEncoder(): Promise<void> {
	initializing ??= init().then(() => {
		ready = true;
	});
	return initializing;
}

export function isWireEncoderReady(): boolean {
	return ready;
}

const textEncoder = new TextEncoder();

/** The uncompressed inner message bytes of a payload (protobuf; UTF-8 JSON for volume). */
export function encodeInner<K extends FrameKind>(kind: K, payload: FramePayloads[K]): Uint8Array {
	switch (kind) {
		case 'gex':
			return gex_profile.Gex.encode(gexMessage(payload as FramePayloads['gex'])).finish();
		case 'greek':
			return option_profile.OptionProfile.encode(
				optionProfileMessage(payload as FramePayloads['greek'])
			).finish();
		case 'orderflow':
			return orderflow_proto.Orderflow.encode(
				orderflowMessage(payload as FramePayloads['orderflow'])
			).finish();
		case 'spot':
			return spot_price.SpotPrice.encode(spotMessage(payload as FramePayloads['spot'])).finish();
		case 'volume':
			return textEncoder.encode(JSON.stringify(payload));
		default:
			throw new RangeError(`unknown frame kind ${String(kind)}`);
	}
}

/** Wraps already-compressed bytes in the google.protobuf.Any envelope. */
export function wrapAny(typeUrl: string, value: Uint8Array): Uint8Array {
	return google.protobuf.Any.encode({ type_url: typeUrl, value }).finish();
}

/**
 * The Any bytes of one frame. Throws if initWireEncoder() has not completed (a programming
 * error: the hub loop must await it at start).
 */
export function encodeFrame<K extends FrameKind>(
	kind: K,
	payload: FramePayloads[K],
	options: { level?: number } = {}
): Uint8Array {
	if (!ready) throw new Error('wire encoder not initialised: await initWireEncoder() first');
	const inner = encodeInner(kind, payload);
	const compressed = compress(inner, options.level ?? DEFAULT_ZSTD_LEVEL);
	return wrapAny(TYPE_URLS[kind], compressed);
}
