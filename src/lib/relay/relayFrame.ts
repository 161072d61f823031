/**
 * The relay's own binary frame, sent from the dashboard server to each viewer: the upstream
 * group frame's google.protobuf.Any bytes, untouched (still zstd-compressed protobuf), behind a
 * small header naming the group. No base64 and no JSON, so the server never decodes a payload
 * and the browser skips a base64 pass.
 *
 *   [u8 version = 1][u16 big-endian group-name byte length][group UTF-8][Any bytes]
 *
 * Pure and browser-safe: the server builds frames with it, the worker parses them.
 */
import type { Outcome } from '../contract/outcome';

export const RELAY_FRAME_VERSION = 1;
/** Group names are at most 64 characters (contract); anything longer is corrupt. */
export const MAX_GROUP_NAME_BYTES = 64;
const HEADER_BYTES = 3;

const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

export interface RelayFrame {
	group: string;
	/** The Any bytes (a view into the received buffer, not a copy). */
	any: Uint8Array;
}

export type RelayFrameParse = Outcome<{ frame: RelayFrame }>;

/** A group's name as a frame carries it; throws RangeError for a name that cannot be a group. */
export function relayFrameName(group: string): Uint8Array {
	const name = utf8.encode(group);
	if (name.length === 0 || name.length > MAX_GROUP_NAME_BYTES) {
		throw new RangeError(`group name of ${name.length} bytes: expected 1..${MAX_GROUP_NAME_BYTES}`);
	}
	return name;
}

/** Bytes of the frame of `name` (relayFrameName) and `any`. */
export function relayFrameLength(name: Uint8Array, any: Uint8Array): number {
	return HEADER_BYTES + name.length + any.length;
}

/**
 * Writes one frame into `out` at `at` (room for relayFrameLength bytes): a body of many frames
 * is built in one buffer, without a copy per frame.
 */
export function writeRelayFrame(out: Uint8Array, at: number, name: Uint8Array, any: Uint8Array) {
	out[at] = RELAY_FRAME_VERSION;
	out[at + 1] = name.length >> 8;
	out[at + 2] = name.length & 0xff;
	out.set(name, at + HEADER_BYTES);
	out.set(any, at + HEADER_BYTES + name.length);
}

/** Encodes one frame; throws RangeError for a group name that cannot be a group. */
export function encodeRelayFrame(group: string, any: Uint8Array): Uint8Array {
	const name = relayFrameName(group);
	const out = new Uint8Array(relayFrameLength(name, any));
	writeRelayFrame(out, 0, name, any);
	return out;
}

/** Parses one frame without throwing; the Any bytes are a subarray (zero copy). */
export function parseRelayFrame(bytes: Uint8Array): RelayFrameParse {
	if (!(bytes instanceof Uint8Array)) return { ok: false, error: 'frame is not bytes' };
	if (bytes.length < HEADER_BYTES) return { ok: false, error: 'frame shorter than its header' };
	if (bytes[0] !== RELAY_FRAME_VERSION) {
		return { ok: false, error: `unknown relay frame version ${bytes[0]}` };
	}
	const nameLength = (bytes[1] << 8) | bytes[2];
	if (nameLength === 0 || nameLength > MAX_GROUP_NAME_BYTES) {
		return { ok: false, error: `group name length ${nameLength} out of range` };
	}
	if (bytes.length < HEADER_BYTES + nameLength) {
		return { ok: false, error: 'frame truncated inside the group name' };
	}
	let group: string;
	try {
		group = utf8Strict.decode(bytes.subarray(HEADER_BYTES, HEADER_BYTES + nameLength));
	} catch {
		return { ok: false, error: 'group name is not UTF-8' };
	}
	return { ok: true, frame: { group, any: bytes.subarray(HEADER_BYTES + nameLength) } };
}
