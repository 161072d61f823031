/**
 * Relay frame -> StreamUpdate: the worker's decode path, as pure functions Node tests call
 * directly. The Any bytes go through the wire codec (fzstd + generated static protobuf code,
 * wire scaling applied) into columnar typed arrays. Nothing here throws: a frame is decoded,
 * or counted as corrupt or unknown by the caller.
 */
import { parseGroup } from '../../contract/hubs';
import { decodeColumnarFrame } from '../../wire/columnarDecode';
import { isWireDecodeError } from '../../wire/errors';
import { parseRelayFrame } from '../../relay/relayFrame';
import type { StreamUpdate } from './updates';

export type DecodeOutcome =
	| { ok: true; update: StreamUpdate }
	/**
	 * `unknown`: a frame this code does not understand (newer relay frame version, unknown type
	 * URL); `corrupt`: anything malformed.
	 */
	| { ok: false; reason: 'corrupt' | 'unknown'; error: string };

function tickerOf(group: string): string {
	const p = parseGroup(group);
	return p.ok ? p.group.ticker : '';
}

function volumeStamp(value: unknown, group: string): { ticker: string; timestamp: number } {
	const o = value as { ticker?: unknown; timestamp?: unknown } | null;
	return {
		ticker: typeof o?.ticker === 'string' ? o.ticker : tickerOf(group),
		timestamp: typeof o?.timestamp === 'number' ? o.timestamp : 0
	};
}

/** Decodes one binary message of `/stream`. */
export function decodeRelayMessage(bytes: Uint8Array): DecodeOutcome {
	const parsed = parseRelayFrame(bytes);
	if (!parsed.ok) {
		return {
			ok: false,
			reason: /version/.test(parsed.error) ? 'unknown' : 'corrupt',
			error: parsed.error
		};
	}
	const { group, any } = parsed.frame;
	try {
		const frame = decodeColumnarFrame(any);
		switch (frame.kind) {
			case 'gex':
			case 'greek':
				return {
					ok: true,
					update: {
						kind: frame.kind,
						group,
						ticker: frame.value.ticker,
						timestamp: frame.value.timestamp,
						value: frame.value
					} as StreamUpdate
				};
			case 'orderflow':
				return {
					ok: true,
					update: {
						kind: 'orderflow',
						group,
						ticker: frame.value.ticker,
						timestamp: frame.value.timestamp,
						value: frame.value
					}
				};
			case 'spot':
				return {
					ok: true,
					update: {
						kind: 'spot',
						group,
						ticker: frame.value.ticker,
						timestamp: frame.value.timestamp,
						value: frame.value
					}
				};
			case 'volume':
				return {
					ok: true,
					update: { kind: 'volume', group, ...volumeStamp(frame.value, group), value: frame.value }
				};
		}
	} catch (e) {
		if (isWireDecodeError(e)) {
			return { ok: false, reason: e.stage === 'type' ? 'unknown' : 'corrupt', error: e.message };
		}
		return { ok: false, reason: 'corrupt', error: e instanceof Error ? e.message : String(e) };
	}
}
