/**
 * The backfill body: what the dashboard server recorded of one stream, as one binary answer the
 * decode worker turns into the same StreamUpdates as live frames (src/lib/stream/backfill.ts).
 *
 *   repeated [u8 entry kind][u32 big-endian length][relay frame]
 *
 * Entry kind 1 carries a recorded group frame exactly as the relay sent it live (so a backfill
 * and a live session decode through the same path, frame for frame); kind 2 carries a polled
 * REST snapshot whose "Any bytes" are its JSON text (accounts that poll instead of stream).
 * Pure and shared: the server encodes, the worker splits.
 */
import { encodeRelayFrame } from './relayFrame';

export const BACKFILL_FRAME = 1;
export const BACKFILL_SNAPSHOT = 2;
const ENTRY_HEADER = 5;

export interface BackfillEntry {
	kind: typeof BACKFILL_FRAME | typeof BACKFILL_SNAPSHOT;
	group: string;
	/** Any bytes (frame) or UTF-8 JSON (snapshot). */
	bytes: Uint8Array;
}

/** Concatenates entries into one body (server side). */
export function encodeBackfill(entries: readonly BackfillEntry[]): Uint8Array {
	const frames = entries.map((e) => ({ kind: e.kind, frame: encodeRelayFrame(e.group, e.bytes) }));
	let size = 0;
	for (const f of frames) size += ENTRY_HEADER + f.frame.length;
	const out = new Uint8Array(size);
	const view = new DataView(out.buffer);
	let at = 0;
	for (const f of frames) {
		out[at] = f.kind;
		view.setUint32(at + 1, f.frame.length);
		out.set(f.frame, at + ENTRY_HEADER);
		at += ENTRY_HEADER + f.frame.length;
	}
	return out;
}

/** Splits a body into its relay frames without decoding them; throws on a malformed body. */
export function splitBackfill(body: Uint8Array): { kind: number; frame: Uint8Array }[] {
	const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
	const out: { kind: number; frame: Uint8Array }[] = [];
	let at = 0;
	while (at < body.length) {
		if (at + ENTRY_HEADER > body.length) throw new RangeError(`backfill truncated at byte ${at}`);
		const kind = body[at];
		if (kind !== BACKFILL_FRAME && kind !== BACKFILL_SNAPSHOT) {
			throw new RangeError(`unknown backfill entry kind ${kind} at byte ${at}`);
		}
		const length = view.getUint32(at + 1);
		const end = at + ENTRY_HEADER + length;
		if (end > body.length) throw new RangeError(`backfill entry at byte ${at} runs past the end`);
		out.push({ kind, frame: body.subarray(at + ENTRY_HEADER, end) });
		at = end;
	}
	return out;
}
