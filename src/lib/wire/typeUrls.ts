/**
 * `google.protobuf.Any.type_url` values of the feed. The contract only promises that the URL
 * contains `proto.gex`, `proto.greek`, `proto.orderflow` or `proto.spot`, so decoding matches
 * by substring. Volume categories (`volume_zero`/`volume_one`) ride the greek hubs with the
 * greek type URL, but their value decompresses to JSON (recognised by its first byte: a JSON
 * text starts with `{` or `[`, which as a protobuf tag would be a deprecated group start that
 * none of these messages use).
 */

import type { FrameKind } from '../contract/hubs';

export const TYPE_URL_PREFIX = 'type.googleapis.com/';

export const TYPE_URLS: Readonly<Record<FrameKind, string>> = {
	gex: `${TYPE_URL_PREFIX}proto.gex`,
	greek: `${TYPE_URL_PREFIX}proto.greek`,
	orderflow: `${TYPE_URL_PREFIX}proto.orderflow`,
	spot: `${TYPE_URL_PREFIX}proto.spot`,
	volume: `${TYPE_URL_PREFIX}proto.greek`
};

/** The message kind a type URL names (volume is told apart by content, see above). */
export function kindOfTypeUrl(typeUrl: string): Exclude<FrameKind, 'volume'> | undefined {
	// proto.greek before proto.gex is irrelevant (neither contains the other) but keep the
	// check exact on the dot-terminated token.
	if (/proto\.gex(?![A-Za-z0-9_])/.test(typeUrl)) return 'gex';
	if (/proto\.greek(?![A-Za-z0-9_])/.test(typeUrl)) return 'greek';
	if (/proto\.orderflow(?![A-Za-z0-9_])/.test(typeUrl)) return 'orderflow';
	if (/proto\.spot(?![A-Za-z0-9_])/.test(typeUrl)) return 'spot';
	return undefined;
}
