/**
 * Which payload of a calculation tick a group carries, and its encoding to the base64 of a
 * `google.protobuf.Any` (the wire layer does the protobuf + zstd work).
 *
 * Spot frames are built from the same tick as the analytics, so `{ticker}_spot` and the
 * analytics of that ticker carry the same ticker and timestamp.
 */
import { parseGroup, type FrameKind, type ParsedGroup } from '../../lib/contract/hubs';
import type { TickEvent } from '../source';
import type { GroupEncoder } from './fanout';

/** Payload JSON value -> `google.protobuf.Any` bytes (src/lib/wire). */
export type AnyEncoder = (frame: FrameKind, value: unknown) => Uint8Array;

/** The value a `proto.spot` frame encodes. */
export interface SpotValue {
	timestamp: number;
	ticker: string;
	spot: number;
}

/** The payload value a group carries at `tick`; undefined when the tick has none for it. */
export function groupValue(group: ParsedGroup, tick: TickEvent): unknown {
	const t = tick.tickers.get(group.ticker);
	if (!t) return undefined;
	switch (group.kind) {
		case 'spot':
			return { timestamp: tick.timestamp, ticker: group.ticker, spot: t.spot } satisfies SpotValue;
		case 'analytics':
			return t.payloads.get(`${group.package}/${group.category}`)?.value;
		case 'expiry':
			// Explicit-expiry payloads come on 5-second ticks, keyed `${stem}_${YYYYMMDD}`: the market
			// publishes the greek profiles (`gamma_20261218`); a `gex_...` or `orderflow_...` entry,
			// should it publish one, is carried the same way (classic and state share the gex one).
			// A State GEX group takes the State shape when the snapshot has one (observed profile).
			return (
				(group.package === 'state' && group.stem === 'gex'
					? t.expiryPayloads?.get(`state_gex_${group.expiry}`)
					: undefined) ?? t.expiryPayloads?.get(`${group.stem}_${group.expiry}`)
			)?.value;
	}
}

/** A GroupEncoder for the fan-out; parsed group names are cached (names repeat every tick). */
export function createGroupEncoder(encodeAny: AnyEncoder): GroupEncoder {
	const parsed = new Map<string, ParsedGroup | null>();
	return (name, tick) => {
		let group = parsed.get(name);
		if (group === undefined) {
			const p = parseGroup(name);
			group = p.ok ? p.group : null;
			if (parsed.size > 10_000) parsed.clear();
			parsed.set(name, group);
		}
		if (group === null) return undefined;
		const value = groupValue(group, tick);
		if (value === undefined) return undefined;
		const frame: FrameKind = group.kind === 'spot' ? 'spot' : group.frame;
		const bytes = encodeAny(frame, value);
		return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
	};
}
