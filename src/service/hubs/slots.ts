/**
 * WebSocket session slots: one custom-script slot per account (shared by all its custom keys)
 * and one platform-integration slot (shared by its platform keys). Both may be live at once.
 *
 * A negotiation (POST or GET /v2/negotiate) renews its slot: every live connection of that slot,
 * on every hub, is told `Websocket Session Limit Reached` and closed, and a new session id is
 * issued so that URLs of the superseded negotiation no longer connect. PATCH only replaces the
 * slot's membership set.
 */
import { randomBytes } from 'node:crypto';
import type { SlotKind } from '../../lib/contract/keys';
import type { Flow, HubConnection } from './connection';
import { SESSION_LIMIT_REASON } from '../../lib/contract/hubs';

/** Close reason of a connection replaced by a newer one on the same negotiated URL. */
export const REPLACED_REASON =
	'Connection replaced: a newer connection opened with the same access token';

/** hub -> group names joined there. */
export type Memberships = Map<string, Set<string>>;

export interface SlotSession {
	id: string;
	flow: Flow;
	/** Legacy flow: the prefix clients put before every group they join. */
	prefix?: string;
}

export class Slot {
	session: SlotSession | undefined;
	/** Server-side memberships (v2 flow). Legacy joins live on each connection. */
	memberships: Memberships = new Map();
	readonly connections = new Set<HubConnection>();

	constructor(
		readonly key: string,
		readonly account: string,
		readonly kind: SlotKind
	) {}

	/** Hubs with at least one open (or recovering) connection of the current session. */
	liveHubs(): Set<string> {
		const hubs = new Set<string>();
		// A reliable connection being recovered still holds its hub (its memberships apply).
		for (const c of this.connections) if (c.receiving) hubs.add(c.hub);
		return hubs;
	}

	/** Memberships counted against the account's limit (legacy: every connection's joins). */
	membershipCount(): number {
		if (this.session?.flow === 'legacy') {
			let n = 0;
			for (const c of this.connections) n += c.joined.size;
			return n;
		}
		return countMemberships(this.memberships);
	}

	/** The groups a connection of this slot receives. */
	groupsOf(conn: HubConnection): ReadonlySet<string> {
		if (conn.flow === 'legacy') return conn.joined;
		return this.memberships.get(conn.hub) ?? EMPTY;
	}
}

const EMPTY: ReadonlySet<string> = new Set();

export function countMemberships(m: Memberships): number {
	let n = 0;
	for (const groups of m.values()) n += groups.size;
	return n;
}

export class SlotManager {
	private readonly slots = new Map<string, Slot>();

	static keyOf(account: string, kind: SlotKind): string {
		return `${account}/${kind}`;
	}

	get(account: string, kind: SlotKind): Slot {
		const key = SlotManager.keyOf(account, kind);
		let slot = this.slots.get(key);
		if (!slot) {
			slot = new Slot(key, account, kind);
			this.slots.set(key, slot);
		}
		return slot;
	}

	find(account: string, kind: SlotKind): Slot | undefined {
		return this.slots.get(SlotManager.keyOf(account, kind));
	}

	byKey(key: string): Slot | undefined {
		return this.slots.get(key);
	}

	/**
	 * A new negotiation takes the slot: kicks its live connections on every hub, then installs a
	 * new session with `memberships` (v2) or none (legacy, the client joins itself).
	 */
	renew(slot: Slot, flow: Flow, memberships: Memberships = new Map()): SlotSession {
		for (const conn of [...slot.connections]) conn.close(SESSION_LIMIT_REASON);
		slot.connections.clear();
		const session: SlotSession = { id: randomBytes(12).toString('base64url'), flow };
		if (flow === 'legacy') session.prefix = legacyPrefix();
		slot.session = session;
		slot.memberships = flow === 'v2' ? memberships : new Map();
		return session;
	}

	/**
	 * Registers a connection; false when its session is no longer the slot's current one.
	 *
	 * One negotiated URL opens one connection, like the slot itself: a newer connection on the
	 * same hub of the same session (the same access token) replaces the older one, which is told
	 * why. Without this, one token could open any number of sockets, each fed the whole stream;
	 * newest-wins (rather than refusing the newcomer) lets a client whose old socket died
	 * silently reconnect at once.
	 */
	attach(conn: HubConnection): boolean {
		const slot = this.slots.get(conn.slotKey);
		if (!slot || slot.session?.id !== conn.session) return false;
		for (const other of [...slot.connections]) {
			if (other.hub !== conn.hub) continue;
			slot.connections.delete(other);
			other.close(REPLACED_REASON);
		}
		slot.connections.add(conn);
		return true;
	}

	detach(conn: HubConnection): void {
		this.slots.get(conn.slotKey)?.connections.delete(conn);
	}

	/** Every slot with at least one connection (the fan-out walks these). */
	*liveSlots(): IterableIterator<Slot> {
		for (const slot of this.slots.values()) if (slot.connections.size > 0) yield slot;
	}

	/** Closes every connection (service shutdown). */
	closeAll(reason: string, code: number): void {
		for (const slot of this.slots.values()) {
			for (const conn of [...slot.connections]) conn.close(reason, code);
			slot.connections.clear();
		}
	}
}

/** Lower-case letters only, so `<prefix>_<group>` never collides with a ticker. */
function legacyPrefix(): string {
	const bytes = randomBytes(8);
	let s = '';
	for (const b of bytes) s += String.fromCharCode(97 + (b % 26));
	return s;
}
