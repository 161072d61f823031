/**
 * Decoding a backfill body (src/lib/relay/backfillBody.ts: what the dashboard server recorded of
 * one stream) into the same StreamUpdates as live frames, in the decode worker.
 */
import type { ClassicChain, GreekProfile, OrderflowBody } from '../contract/schemas';
import { parseGroup } from '../contract/hubs';
import { columnarGex, columnarGreekProfile } from '../wire/columnar';
import { BACKFILL_FRAME, splitBackfill } from '../relay/backfillBody';
import { parseRelayFrame } from '../relay/relayFrame';
import { decodeRelayMessage } from './relayDecode';
import type { StreamUpdate } from './updates';

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
