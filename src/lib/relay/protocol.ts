/**
 * The viewer protocol of the dashboard's `/stream` endpoint: JSON text control messages in both
 * directions, binary relay frames (./relayFrame) for data. Shared by the server relay and the
 * browser worker; parsers never throw.
 */
import type { Outcome } from '../contract/outcome';

export const STREAM_PATH = '/stream';

/**
 * WebSocket close code the dashboard sends to every viewer when it shuts down gracefully
 * (1012, "Service Restart"): the page reconnects at once and keeps its subscriptions.
 */
export const RESTARTING_CLOSE_CODE = 1012;

/** What the relay's hold on the upstream slot looks like. */
export type RelayState =
	/** No group wanted: nothing negotiated or the slot is idle. */
	| 'idle'
	/** A POST or PATCH is under way. */
	| 'negotiating'
	/** Every wanted hub is connected and the membership set is applied. */
	| 'live'
	/** A hub dropped or a request failed: retrying after a delay. */
	| 'reconnecting'
	/** Another program of the account negotiated: waiting for a user's takeBack. */
	| 'slot-taken'
	/** Cluster mode: another replica holds the slot; its frames arrive through Redis. */
	| 'standby'
	/** The upstream refused for a reason retrying cannot fix (key, tier): waiting for a change. */
	| 'error'
	| 'closed';

export interface RefusedGroup {
	group: string;
	reason: string;
}

// Viewer -> server.
export type ViewerRequest =
	/**
	 * `after`: the sequence of the last frame the viewer had (a reconnect in cluster mode): the
	 * frames of these groups published since are replayed before live ones, then `resumed`.
	 */
	| { type: 'subscribe'; groups: string[]; id?: number; after?: string }
	| { type: 'unsubscribe'; groups: string[]; id?: number }
	| { type: 'status'; id?: number }
	/** The user asks to take the slot back after another program took it. */
	| { type: 'takeBack'; id?: number };

export interface MembershipUsage {
	/** Hub-and-group memberships of the union of every viewer's groups (spot expanded). */
	used: number;
	limit: number;
	perHub: Record<string, number>;
}

export interface StatusMessage {
	type: 'status';
	id?: number;
	state: RelayState;
	/** Why the state is what it is (slot taken by whom, upstream error text, retry delay). */
	reason?: string;
	usage: MembershipUsage;
	/** The groups this viewer is subscribed to (spot groups included automatically). */
	groups: string[];
	viewers: number;
}

// Server -> viewer.
export type RelayMessage =
	| { type: 'subscribed'; id?: number; accepted: string[]; refused: RefusedGroup[] }
	| { type: 'unsubscribed'; id?: number; groups: string[] }
	/** Groups the relay had accepted but the upstream then refused (dropped again). */
	| { type: 'revoked'; refused: RefusedGroup[] }
	| StatusMessage
	/**
	 * Frames are missing here (never silently): `at` is where in the cluster's stream (a
	 * hand-over of the upstream slot); without it, a resume asked for frames no longer kept.
	 */
	| { type: 'gap'; at?: string; reason: string }
	/** A resume after `after` is done: `replayed` frames were sent again, live ones follow. */
	| { type: 'resumed'; after: string; replayed: number }
	| { type: 'error'; id?: number; message: string };

/** A frame sequence: a Redis Stream id (`<ms>-<n>`). */
export const SEQ_PATTERN = /^\d{1,20}-\d{1,20}$/;

export type ParseResult<T> = Outcome<{ message: T }>;

/** Requests larger than this are refused unread (a subscribe of 150 groups is ~5 kB). */
export const MAX_REQUEST_CHARS = 64 * 1024;
const MAX_GROUPS_PER_REQUEST = 1000;

function parseId(v: unknown): number | undefined | false {
	if (v === undefined) return undefined;
	return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : false;
}

function object(text: string): Record<string, unknown> | string {
	if (text.length > MAX_REQUEST_CHARS) return 'request too large';
	let v: unknown;
	try {
		v = JSON.parse(text);
	} catch {
		return 'request is not JSON';
	}
	if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'request is not an object';
	return v as Record<string, unknown>;
}

/** Parses a viewer's control message (server side). */
export function parseViewerRequest(text: string): ParseResult<ViewerRequest> {
	const o = object(text);
	if (typeof o === 'string') return { ok: false, error: o };
	const id = parseId(o.id);
	if (id === false) return { ok: false, error: 'id must be a non-negative integer' };
	const withId = <T extends object>(m: T): T & { id?: number } =>
		id === undefined ? m : { ...m, id };
	switch (o.type) {
		case 'subscribe':
		case 'unsubscribe': {
			const g = o.groups;
			if (!Array.isArray(g) || g.length > MAX_GROUPS_PER_REQUEST) {
				return { ok: false, error: `${o.type} needs groups: an array of group names` };
			}
			if (!g.every((x) => typeof x === 'string')) {
				return { ok: false, error: 'groups must be strings' };
			}
			if (o.type === 'subscribe' && o.after !== undefined) {
				if (typeof o.after !== 'string' || !SEQ_PATTERN.test(o.after)) {
					return { ok: false, error: 'after must be a frame sequence (<ms>-<n>)' };
				}
				return { ok: true, message: withId({ type: o.type, groups: g, after: o.after }) };
			}
			return { ok: true, message: withId({ type: o.type, groups: g as string[] }) };
		}
		case 'status':
		case 'takeBack':
			return { ok: true, message: withId({ type: o.type }) };
		default:
			return { ok: false, error: `unknown request type ${JSON.stringify(o.type)}` };
	}
}

const STATES: readonly string[] = [
	'idle',
	'negotiating',
	'live',
	'reconnecting',
	'slot-taken',
	'standby',
	'error',
	'closed'
];

function refusedList(v: unknown): RefusedGroup[] | undefined {
	if (!Array.isArray(v)) return undefined;
	const out: RefusedGroup[] = [];
	for (const r of v) {
		const x = r as { group?: unknown; reason?: unknown } | null;
		if (!x || typeof x.group !== 'string' || typeof x.reason !== 'string') return undefined;
		out.push({ group: x.group, reason: x.reason });
	}
	return out;
}

const strings = (v: unknown): v is string[] =>
	Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Parses a relay control message (browser side). */
export function parseRelayMessage(text: string): ParseResult<RelayMessage> {
	const o = object(text);
	if (typeof o === 'string') return { ok: false, error: o };
	const id = parseId(o.id);
	if (id === false) return { ok: false, error: 'bad id' };
	const idPart = id === undefined ? {} : { id };
	switch (o.type) {
		case 'subscribed': {
			const refused = refusedList(o.refused);
			if (!strings(o.accepted) || !refused) return { ok: false, error: 'bad subscribed message' };
			return {
				ok: true,
				message: { type: 'subscribed', ...idPart, accepted: o.accepted, refused }
			};
		}
		case 'unsubscribed':
			if (!strings(o.groups)) return { ok: false, error: 'bad unsubscribed message' };
			return { ok: true, message: { type: 'unsubscribed', ...idPart, groups: o.groups } };
		case 'revoked': {
			const refused = refusedList(o.refused);
			if (!refused) return { ok: false, error: 'bad revoked message' };
			return { ok: true, message: { type: 'revoked', refused } };
		}
		case 'status': {
			const u = o.usage as Partial<MembershipUsage> | undefined;
			if (
				typeof o.state !== 'string' ||
				!STATES.includes(o.state) ||
				!u ||
				typeof u.used !== 'number' ||
				typeof u.limit !== 'number' ||
				typeof u.perHub !== 'object' ||
				u.perHub === null ||
				!strings(o.groups) ||
				typeof o.viewers !== 'number'
			) {
				return { ok: false, error: 'bad status message' };
			}
			const message: StatusMessage = {
				type: 'status',
				...idPart,
				state: o.state as RelayState,
				usage: { used: u.used, limit: u.limit, perHub: { ...u.perHub } },
				groups: o.groups,
				viewers: o.viewers
			};
			if (typeof o.reason === 'string') message.reason = o.reason;
			return { ok: true, message };
		}
		case 'gap':
			if (typeof o.reason !== 'string' || (o.at !== undefined && typeof o.at !== 'string')) {
				return { ok: false, error: 'bad gap message' };
			}
			return {
				ok: true,
				message:
					typeof o.at === 'string'
						? { type: 'gap', at: o.at, reason: o.reason }
						: { type: 'gap', reason: o.reason }
			};
		case 'resumed':
			if (typeof o.after !== 'string' || typeof o.replayed !== 'number') {
				return { ok: false, error: 'bad resumed message' };
			}
			return { ok: true, message: { type: 'resumed', after: o.after, replayed: o.replayed } };
		case 'error':
			if (typeof o.message !== 'string') return { ok: false, error: 'bad error message' };
			return { ok: true, message: { type: 'error', ...idPart, message: o.message } };
		default:
			return { ok: false, error: `unknown message type ${JSON.stringify(o.type)}` };
	}
}
