/**
 * The backfill body: what the dashboard server recorded of one stream, as one binary answer the
 * decode worker turns into the same StreamUpdates as live frames.
 *
 *   repeated [u8 entry kind][u32 big-endian length][relay frame]
 *
 * Entry kind 1 carries a recorded group frame exactly as the relay sent it live (so a backfill
 * and a live session decode through decodeRelayMessage, frame for frame); kind 2 carries a
 * polled REST snapshot whose "Any bytes" are its JSON text (accounts that poll instead of
 * stream). Pure and browser-safe: the server encodes, the worker decodes.
 */
import type { ClassicChain, GreekProfile, OrderflowBody } from '../contract/schemas';
import { parseGroup } from '../contract/hubs';
import { columnarGex, columnarGreekProfile } from '../wire/columnar';
import { decodeRelayMessage } from './decode';
import { encodeRelayFrame, parseRelayFrame } from './relayFrame';
import type { StreamUpdate } from './updates';

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

const utf8 = new TextDecoder();

/** A polled REST snapshot (the route's JSON) as the update a live frame of its group makes. */
export function snapshotUpdate(group: string, json: string): StreamUpdate | undefined {
	const parsed = parseGroup(group);
	if (!parsed.ok || parsed.group.kind === 'spot') return undefined;
	const body = JSON.parse(json) as { ticker: string; timestamp: number };
	const base = { group, ticker: body.ticker, timestamp: body.timestamp };
	switch (parsed.group.frame) {
		case 'gex':
			return { ...base, kind: 'gex', value: columnarGex(body as unknown as ClassicChain) };
		case 'greek':
			return {
				...base,
				kind: 'greek',
				value: columnarGreekProfile(body as unknown as GreekProfile)
			};
		case 'orderflow':
			return { ...base, kind: 'orderflow', value: body as unknown as OrderflowBody };
		default:
			return undefined;
	}
}

export interface BackfillDecode {
	updates: StreamUpdate[];
	/** Entries that did not decode (counted, skipped: the rest of the day still shows). */
	corrupt: number;
	lastError?: string;
}

/** Decodes a whole backfill body into updates, in recorded order. Never throws. */
export function decodeBackfill(body: Uint8Array): BackfillDecode {
	const result: BackfillDecode = { updates: [], corrupt: 0 };
	let entries: { kind: number; frame: Uint8Array }[];
	try {
		entries = splitBackfill(body);
	} catch (e) {
		result.corrupt++;
		result.lastError = (e as Error).message;
		return result;
	}
	for (const { kind, frame } of entries) {
		if (kind === BACKFILL_FRAME) {
			const outcome = decodeRelayMessage(frame);
			if (outcome.ok) result.updates.push(outcome.update);
			else {
				result.corrupt++;
				result.lastError = outcome.error;
			}
			continue;
		}
		const parsed = parseRelayFrame(frame);
		try {
			const update = parsed.ok
				? snapshotUpdate(parsed.frame.group, utf8.decode(parsed.frame.any))
				: undefined;
			if (update) result.updates.push(update);
			else {
				result.corrupt++;
				result.lastError = parsed.ok ? `snapshot of ${parsed.frame.group}` : parsed.error;
			}
		} catch (e) {
			result.corrupt++;
			result.lastError = (e as Error).message;
		}
	}
	return result;
}
