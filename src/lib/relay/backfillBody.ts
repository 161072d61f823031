/**
 * The backfill body: what the dashboard server recorded of one stream, as one binary answer the
 * decode worker turns into the same StreamUpdates as live frames (src/lib/stream/backfill/backfill.ts).
 *
 *   repeated [u8 entry kind][u32 big-endian length][relay frame]
 *
 * Entry kind 1 carries a recorded group frame exactly as the relay sent it live (so a backfill
 * and a live session decode through the same path, frame for frame); kind 2 carries a polled
 * REST snapshot whose "Any bytes" are its JSON text (accounts that poll instead of stream).
 * Pure and shared: the server encodes, the worker splits.
 */
import { relayFrameLength, relayFrameName, writeRelayFrame } from './relayFrame';

export const BACKFILL_FRAME = 1;
export const BACKFILL_SNAPSHOT = 2;
const ENTRY_HEADER = 5;

export interface BackfillEntry {
	kind: typeof BACKFILL_FRAME | typeof BACKFILL_SNAPSHOT;
	group: string;
	/** Any bytes (frame) or UTF-8 JSON (snapshot). */
	bytes: Uint8Array;
}

/**
 * Concatenates entries into one body (server side): one allocation, each relay frame written in
 * place (a day's backfill is hundreds of MB; a copy per frame was garbage the server's event
 * loop paid for in collections).
 */
export function encodeBackfill(entries: readonly BackfillEntry[]): Uint8Array {
	const names = new Map<string, Uint8Array>();
	const nameOf = (group: string) => {
		let name = names.get(group);
		if (!name) names.set(group, (name = relayFrameName(group)));
		return name;
	};
	let size = 0;
	for (const e of entries) size += ENTRY_HEADER + relayFrameLength(nameOf(e.group), e.bytes);
	const out = new Uint8Array(size);
	const view = new DataView(out.buffer);
	let at = 0;
	for (const e of entries) {
		const name = nameOf(e.group);
		const length = relayFrameLength(name, e.bytes);
		out[at] = e.kind;
		view.setUint32(at + 1, length);
		writeRelayFrame(out, at + ENTRY_HEADER, name, e.bytes);
		at += ENTRY_HEADER + length;
	}
	return out;
}

/** One entry of a body: its kind and its relay frame (a view into the body, not a copy). */
export interface SplitEntry {
	kind: number;
	frame: Uint8Array;
}

/**
 * Splits a body that arrives in pieces (a streamed fetch) into entries as soon as each is whole,
 * so the worker decodes while the rest is still on the wire. Throws RangeError on a malformed
 * body; nothing after a bad header can be trusted, so a splitter that threw stays failed.
 */
export class BackfillSplitter {
	private held = new Uint8Array(0);
	/** Bytes consumed so far (the offset errors name). */
	private consumed = 0;

	/** Feeds the next piece; returns the entries it completed (views into `piece` or a copy). */
	push(piece: Uint8Array): SplitEntry[] {
		let buf = piece;
		if (this.held.length > 0) {
			// Only an entry cut by a piece boundary is copied; whole entries stay views.
			buf = new Uint8Array(this.held.length + piece.length);
			buf.set(this.held);
			buf.set(piece, this.held.length);
		}
		const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
		const out: SplitEntry[] = [];
		let at = 0;
		while (at + ENTRY_HEADER <= buf.length) {
			const kind = buf[at];
			if (kind !== BACKFILL_FRAME && kind !== BACKFILL_SNAPSHOT) {
				throw new RangeError(`unknown backfill entry kind ${kind} at byte ${this.consumed + at}`);
			}
			const end = at + ENTRY_HEADER + view.getUint32(at + 1);
			if (end > buf.length) break;
			out.push({ kind, frame: buf.subarray(at + ENTRY_HEADER, end) });
			at = end;
		}
		this.consumed += at;
		this.held = buf.slice(at);
		return out;
	}

	/** The body ended: throws when it stopped inside an entry. */
	end(): void {
		if (this.held.length === 0) return;
		throw new RangeError(
			this.held.length < ENTRY_HEADER
				? `backfill truncated at byte ${this.consumed}`
				: `backfill entry at byte ${this.consumed} runs past the end`
		);
	}
}

/** Splits a whole body into its relay frames without decoding them; throws on a malformed body. */
export function splitBackfill(body: Uint8Array): SplitEntry[] {
	const splitter = new BackfillSplitter();
	const out = splitter.push(body);
	splitter.end();
	return out;
}
