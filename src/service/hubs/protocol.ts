/**
 * The server side of the `json.webpubsub.azure.v1` subprotocol (Azure Web PubSub, JSON text
 * frames): what the hubs write and how they read what a client sends.
 *
 * Group messages are built by string concatenation around a base64 payload computed once per
 * group and tick, so fan-out to many members costs no JSON.stringify of the data.
 */

export const SUBPROTOCOL = 'json.webpubsub.azure.v1';

/** Why a slot's connections are closed when a new negotiation takes the slot. */
export const SESSION_LIMIT_REASON = 'Websocket Session Limit Reached';

export function connectedMessage(userId: string, connectionId: string): string {
	return JSON.stringify({ type: 'system', event: 'connected', userId, connectionId });
}

export function disconnectedMessage(reason: string): string {
	return JSON.stringify({ type: 'system', event: 'disconnected', message: reason });
}

/** Azure's ack error names: `Forbidden` (not allowed), `Duplicate`, `InternalServerError`. */
export type AckErrorName = 'Forbidden' | 'Duplicate' | 'InternalServerError';

export function ackMessage(ackId: number, error?: { name: AckErrorName; message: string }): string {
	return JSON.stringify(
		error ? { type: 'ack', ackId, success: false, error } : { type: 'ack', ackId, success: true }
	);
}

export const PONG_MESSAGE = '{"type":"pong"}';

/**
 * The group message envelope. `base64` must be standard base64 (no quotes or backslashes can
 * occur in it, so it is embedded verbatim); the group name is JSON-escaped.
 */
export function groupMessage(group: string, base64: string): string {
	return `{"type":"message","from":"group","group":${JSON.stringify(group)},"dataType":"protobuf","data":"${base64}"}`;
}

/** What a client may send; anything else is `unknown` and ignored without closing. */
export type ClientMessage =
	| { type: 'joinGroup'; group: string; ackId?: number }
	| { type: 'leaveGroup'; group: string; ackId?: number }
	| { type: 'ping' }
	/** Publishing (`sendToGroup`, `event`) is not offered by this feed: acked as forbidden. */
	| { type: 'publish'; ackId?: number }
	| { type: 'unknown' };

const MAX_CLIENT_MESSAGE = 64 * 1024;

/** Parses one client text frame. Never throws: malformed input is `unknown`. */
export function parseClientMessage(text: string): ClientMessage {
	if (typeof text !== 'string' || text.length > MAX_CLIENT_MESSAGE) return { type: 'unknown' };
	let raw: unknown;
	try {
		raw = JSON.parse(text);
	} catch {
		return { type: 'unknown' };
	}
	if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { type: 'unknown' };
	const m = raw as Record<string, unknown>;
	const ackId = isAckId(m.ackId) ? m.ackId : undefined;
	switch (m.type) {
		case 'joinGroup':
		case 'leaveGroup':
			if (typeof m.group !== 'string' || m.group.length === 0) return { type: 'unknown' };
			return ackId === undefined
				? { type: m.type, group: m.group }
				: { type: m.type, group: m.group, ackId };
		case 'ping':
			return { type: 'ping' };
		case 'sendToGroup':
		case 'event':
			return ackId === undefined ? { type: 'publish' } : { type: 'publish', ackId };
		default:
			return { type: 'unknown' };
	}
}

function isAckId(v: unknown): v is number {
	return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}
