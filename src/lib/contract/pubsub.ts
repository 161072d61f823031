/**
 * Azure Web PubSub JSON subprotocols: the plain `json.webpubsub.azure.v1` and the reliable
 * `json.reliable.webpubsub.azure.v1` (the SDKs' default: a sequenceId on every data message,
 * cumulative sequenceAck from the client, resumable connections). The JSON text frames the hubs
 * and their clients exchange. Parsers never throw; an unparseable or unknown frame comes back as
 * a typed failure or `unknown` so a connection can ignore it instead of dropping.
 */
import type { Outcome } from './outcome';

export const WEBPUBSUB_SUBPROTOCOL = 'json.webpubsub.azure.v1';
export const WEBPUBSUB_RELIABLE_SUBPROTOCOL = 'json.reliable.webpubsub.azure.v1';
/** The subprotocols the hubs speak, in the order they are named in a refusal. */
export const SUPPORTED_SUBPROTOCOLS = [
	WEBPUBSUB_SUBPROTOCOL,
	WEBPUBSUB_RELIABLE_SUBPROTOCOL
] as const;
export type SupportedSubprotocol = (typeof SUPPORTED_SUBPROTOCOLS)[number];

/** Query parameters of a reliable client's reconnection to the same hub URL. */
export const RECOVERY_CONNECTION_PARAM = 'awps_connection_id';
export const RECOVERY_TOKEN_PARAM = 'awps_reconnection_token';

/**
 * The first subprotocol of a client's offer (its order of preference) that the hubs speak;
 * undefined when none is.
 */
export function pickSubprotocol(offered: Iterable<string>): SupportedSubprotocol | undefined {
	for (const p of offered) {
		const name = p.trim();
		if ((SUPPORTED_SUBPROTOCOLS as readonly string[]).includes(name)) {
			return name as SupportedSubprotocol;
		}
	}
	return undefined;
}

/** Data types a group message may carry; the feed uses `protobuf` (clients accept `binary`). */
export type PubSubDataType = 'protobuf' | 'binary' | 'json' | 'text';

export interface ConnectedMessage {
	type: 'system';
	event: 'connected';
	userId: string | null;
	connectionId: string;
	reconnectionToken?: string;
}

export interface DisconnectedMessage {
	type: 'system';
	event: 'disconnected';
	message: string;
}

export interface GroupDataMessage {
	type: 'message';
	from: 'group';
	group: string;
	dataType: PubSubDataType;
	/** base64 for protobuf/binary, any JSON for json, a string for text. */
	data: unknown;
	fromUserId?: string;
	sequenceId?: number;
}

export interface ServerDataMessage {
	type: 'message';
	from: 'server';
	dataType: PubSubDataType;
	data: unknown;
	sequenceId?: number;
}

export interface AckMessage {
	type: 'ack';
	ackId: number;
	success: boolean;
	error?: { name: string; message: string };
}

export interface PongMessage {
	type: 'pong';
}

export type ServerMessage =
	| ConnectedMessage
	| DisconnectedMessage
	| GroupDataMessage
	| ServerDataMessage
	| AckMessage
	| PongMessage;

export interface JoinGroupMessage {
	type: 'joinGroup';
	group: string;
	ackId?: number;
}

export interface LeaveGroupMessage {
	type: 'leaveGroup';
	group: string;
	ackId?: number;
}

export interface PingMessage {
	type: 'ping';
}

export interface SequenceAckMessage {
	type: 'sequenceAck';
	sequenceId: number;
}

/** Client messages the feed does not act on but must tolerate (publishing is not offered). */
export interface OtherClientMessage {
	type: 'sendToGroup' | 'event' | 'unknown';
	raw: Record<string, unknown>;
}

export type ClientMessage =
	JoinGroupMessage | LeaveGroupMessage | PingMessage | SequenceAckMessage | OtherClientMessage;

export type Parsed<T> = Outcome<{ message: T }>;

const DATA_TYPES: readonly string[] = ['protobuf', 'binary', 'json', 'text'];

function parseObject(text: string): Record<string, unknown> | string {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return 'frame is not JSON';
	}
	if (typeof value !== 'object' || value === null || Array.isArray(value)) {
		return 'frame is not a JSON object';
	}
	return value as Record<string, unknown>;
}

function isAckId(v: unknown): v is number {
	return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/** Parses a frame a client sent to the service. */
export function parseClientMessage(text: string): Parsed<ClientMessage> {
	const o = parseObject(text);
	if (typeof o === 'string') return { ok: false, error: o };
	switch (o.type) {
		case 'joinGroup':
		case 'leaveGroup': {
			if (typeof o.group !== 'string' || o.group.length === 0) {
				return { ok: false, error: `${o.type} needs a group name` };
			}
			if (o.ackId !== undefined && !isAckId(o.ackId)) {
				return { ok: false, error: 'ackId must be a non-negative integer' };
			}
			const message: JoinGroupMessage | LeaveGroupMessage = { type: o.type, group: o.group };
			if (o.ackId !== undefined) message.ackId = o.ackId as number;
			return { ok: true, message };
		}
		case 'ping':
			return { ok: true, message: { type: 'ping' } };
		case 'sequenceAck':
			return isAckId(o.sequenceId)
				? { ok: true, message: { type: 'sequenceAck', sequenceId: o.sequenceId } }
				: { ok: false, error: 'sequenceAck needs a sequenceId' };
		case 'sendToGroup':
		case 'event':
			return { ok: true, message: { type: o.type, raw: o } };
		default:
			return { ok: true, message: { type: 'unknown', raw: o } };
	}
}

/** Parses a frame the service sent to a client. */
export function parseServerMessage(text: string): Parsed<ServerMessage> {
	const o = parseObject(text);
	if (typeof o === 'string') return { ok: false, error: o };
	switch (o.type) {
		case 'system':
			if (o.event === 'connected') {
				if (typeof o.connectionId !== 'string')
					return { ok: false, error: 'connected without connectionId' };
				const message: ConnectedMessage = {
					type: 'system',
					event: 'connected',
					userId: typeof o.userId === 'string' ? o.userId : null,
					connectionId: o.connectionId
				};
				if (typeof o.reconnectionToken === 'string')
					message.reconnectionToken = o.reconnectionToken;
				return { ok: true, message };
			}
			if (o.event === 'disconnected') {
				return {
					ok: true,
					message: {
						type: 'system',
						event: 'disconnected',
						message: typeof o.message === 'string' ? o.message : ''
					}
				};
			}
			return { ok: false, error: `unknown system event ${String(o.event)}` };
		case 'message': {
			if (typeof o.dataType !== 'string' || !DATA_TYPES.includes(o.dataType)) {
				return { ok: false, error: `unknown dataType ${String(o.dataType)}` };
			}
			const dataType = o.dataType as PubSubDataType;
			if ((dataType === 'protobuf' || dataType === 'binary') && typeof o.data !== 'string') {
				return { ok: false, error: `${dataType} data must be a base64 string` };
			}
			const sequenceId = isAckId(o.sequenceId) ? o.sequenceId : undefined;
			if (o.from === 'group') {
				if (typeof o.group !== 'string') return { ok: false, error: 'group message without group' };
				const message: GroupDataMessage = {
					type: 'message',
					from: 'group',
					group: o.group,
					dataType,
					data: o.data
				};
				if (typeof o.fromUserId === 'string') message.fromUserId = o.fromUserId;
				if (sequenceId !== undefined) message.sequenceId = sequenceId;
				return { ok: true, message };
			}
			if (o.from === 'server') {
				const message: ServerDataMessage = {
					type: 'message',
					from: 'server',
					dataType,
					data: o.data
				};
				if (sequenceId !== undefined) message.sequenceId = sequenceId;
				return { ok: true, message };
			}
			return { ok: false, error: `unknown message source ${String(o.from)}` };
		}
		case 'ack': {
			if (!isAckId(o.ackId) || typeof o.success !== 'boolean') {
				return { ok: false, error: 'ack needs ackId and success' };
			}
			const message: AckMessage = { type: 'ack', ackId: o.ackId, success: o.success };
			const e = o.error as { name?: unknown; message?: unknown } | undefined;
			if (e && typeof e === 'object') {
				message.error = { name: String(e.name ?? ''), message: String(e.message ?? '') };
			}
			return { ok: true, message };
		}
		case 'pong':
			return { ok: true, message: { type: 'pong' } };
		default:
			return { ok: false, error: `unknown message type ${String(o.type)}` };
	}
}

export function connectedMessage(
	connectionId: string,
	userId: string | null,
	reconnectionToken?: string
): ConnectedMessage {
	return reconnectionToken === undefined
		? { type: 'system', event: 'connected', userId, connectionId }
		: { type: 'system', event: 'connected', userId, connectionId, reconnectionToken };
}

export function disconnectedMessage(reason: string): DisconnectedMessage {
	return { type: 'system', event: 'disconnected', message: reason };
}

/** A group frame; `base64` is the encoded google.protobuf.Any. */
export function groupDataMessage(group: string, base64: string): GroupDataMessage {
	return { type: 'message', from: 'group', group, dataType: 'protobuf', data: base64 };
}

/**
 * The JSON text of a group frame, built by concatenation: the hub loop sends the same frame to
 * many connections every second, and group names and base64 need no escaping.
 */
export function groupDataText(group: string, base64: string): string {
	if (!/^[A-Za-z0-9_]+$/.test(group) || !/^[A-Za-z0-9+/=]*$/.test(base64)) {
		return JSON.stringify(groupDataMessage(group, base64));
	}
	return `{"type":"message","from":"group","group":"${group}","dataType":"protobuf","data":"${base64}"}`;
}

/**
 * A data message's JSON text with `"sequenceId": n` added (reliable protocol). The envelope is
 * shared by every member of a group; only this short tail is per connection.
 */
export function withSequenceId(envelope: string, sequenceId: number): string {
	return `${envelope.slice(0, -1)},"sequenceId":${sequenceId}}`;
}

export function sequenceAckMessage(sequenceId: number): SequenceAckMessage {
	return { type: 'sequenceAck', sequenceId };
}

export function ackMessage(
	ackId: number,
	success: boolean,
	error?: { name: string; message: string }
): AckMessage {
	return error ? { type: 'ack', ackId, success, error } : { type: 'ack', ackId, success };
}

export function joinGroupMessage(group: string, ackId?: number): JoinGroupMessage {
	return ackId === undefined ? { type: 'joinGroup', group } : { type: 'joinGroup', group, ackId };
}

export function leaveGroupMessage(group: string, ackId?: number): LeaveGroupMessage {
	return ackId === undefined ? { type: 'leaveGroup', group } : { type: 'leaveGroup', group, ackId };
}
