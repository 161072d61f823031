/**
 * The relay's own binary frame, sent from the dashboard server to each viewer: the upstream
 * group frame's google.protobuf.Any bytes, untouched (still zstd-compressed protobuf), behind a
 * small header naming the group. No base64 and no JSON, so the server never decodes a payload
 * and the browser skips a base64 pass.
 *
 *   [u8 version = 1][u16 big-endian group-name byte length][group UTF-8][Any bytes]
 *
 * In cluster mode a frame also carries its sequence, the Redis Stream id it was read from
 * (`<ms>-<n>`), so a reconnecting viewer can ask to resume after the last one it saw:
 *
 *   [u8 version = 2][u16 name length][group UTF-8][u8 sequence length][sequence ASCII][Any bytes]
 *
 * Pure and browser-safe: the server builds frames with it, the worker parses them.
 */
import type { Outcome } from '../contract/outcome';

export const RELAY_FRAME_VERSION = 1;
/** The version of a frame that carries its sequence (cluster mode). */
export const RELAY_FRAME_SEQ_VERSION = 2;
/** A Redis Stream id is at most 41 characters (two 64-bit numbers and a dash). */
export const MAX_SEQ_BYTES = 41;
const SEQ = /^\d{1,20}-\d{1,20}$/;
/** Group names are at most 64 characters (contract); anything longer is corrupt. */
export const MAX_GROUP_NAME_BYTES = 64;
const HEADER_BYTES = 3;

const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

export interface RelayFrame {
	group: string;
	/** The Any bytes (a view into the received buffer, not a copy). */
	any: Uint8Array;
	/** The frame's sequence (a Redis Stream id), in cluster mode only. */
	seq?: string;
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

/**
 * Encodes one frame, with its sequence when given; throws RangeError for a group name that
 * cannot be a group or a sequence that is not a stream id.
 */
export function encodeRelayFrame(group: string, any: Uint8Array, seq?: string): Uint8Array {
	const name = relayFrameName(group);
	if (seq === undefined) {
		const out = new Uint8Array(relayFrameLength(name, any));
		writeRelayFrame(out, 0, name, any);
		return out;
	}
	if (!SEQ.test(seq)) throw new RangeError(`sequence ${JSON.stringify(seq)} is not a stream id`);
	const at = HEADER_BYTES + name.length;
	const out = new Uint8Array(at + 1 + seq.length + any.length);
	out[0] = RELAY_FRAME_SEQ_VERSION;
	out[1] = name.length >> 8;
	out[2] = name.length & 0xff;
	out.set(name, HEADER_BYTES);
	out[at] = seq.length;
	for (let i = 0; i < seq.length; i++) out[at + 1 + i] = seq.charCodeAt(i);
	out.set(any, at + 1 + seq.length);
	return out;
}

/** Parses one frame without throwing; the Any bytes are a subarray (zero copy). */
export function parseRelayFrame(bytes: Uint8Array): RelayFrameParse {
	if (!(bytes instanceof Uint8Array)) return { ok: false, error: 'frame is not bytes' };
	if (bytes.length < HEADER_BYTES) return { ok: false, error: 'frame shorter than its header' };
	const version = bytes[0];
	if (version !== RELAY_FRAME_VERSION && version !== RELAY_FRAME_SEQ_VERSION) {
		return { ok: false, error: `unknown relay frame version ${version}` };
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
	const at = HEADER_BYTES + nameLength;
	if (version === RELAY_FRAME_VERSION)
		return { ok: true, frame: { group, any: bytes.subarray(at) } };
	const seqLength = bytes[at];
	if (seqLength === undefined || bytes.length < at + 1 + seqLength) {
		return { ok: false, error: 'frame truncated inside the sequence' };
	}
	const seq = String.fromCharCode(...bytes.subarray(at + 1, at + 1 + seqLength));
	if (seqLength > MAX_SEQ_BYTES || !SEQ.test(seq)) {
		return { ok: false, error: 'frame sequence is not a stream id' };
	}
	return { ok: true, frame: { group, seq, any: bytes.subarray(at + 1 + seqLength) } };
}

/** The sequence of a frame, read from its header alone; undefined without one (or corrupt). */
export function relayFrameSeq(bytes: Uint8Array): string | undefined {
	if (bytes[0] !== RELAY_FRAME_SEQ_VERSION || bytes.length < HEADER_BYTES) return undefined;
	const at = HEADER_BYTES + ((bytes[1] << 8) | bytes[2]);
	const length = bytes[at];
	if (length === undefined || length > MAX_SEQ_BYTES || bytes.length < at + 1 + length) {
		return undefined;
	}
	const seq = String.fromCharCode(...bytes.subarray(at + 1, at + 1 + length));
	return SEQ.test(seq) ? seq : undefined;
}
