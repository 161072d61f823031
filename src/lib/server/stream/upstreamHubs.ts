/**
 * The stream relay's upstream hub connections (see relay.ts): one ResumableHub per hub in use,
 * which of them are resuming after a drop, and the events of the current ones (a hub the relay
 * replaced or retired says nothing more).
 */
import type { HubEnd } from './hubSocket';
import type { StreamRelayOptions } from './relayOptions';
import { ResumableHub } from './resumable';

/** What the relay hears from its current hubs. */
export interface HubEvents {
	groupData(group: string, any: Buffer): void;
	/** A hub greeted (first connects and reconnects). */
	connected(): void;
	/** A hub dropped and is resuming; `first` on the first report of that drop. */
	recovering(hub: string, end: HubEnd, first: boolean): void;
	/** A hub resumed; `stillResuming` other hubs have not yet. */
	resumed(hub: string, stillResuming: number): void;
	/** A connected hub ended for good. */
	ended(hub: string, end: HubEnd): void;
	/** A hub being connected was refused because another program took the slot. */
	slotTaken(reason: string): void;
	/** The relay is closed (a dropping hub is then not resumed). */
	isClosed(): boolean;
}

export class UpstreamHubs {
	private readonly hubs = new Map<string, ResumableHub>();
	/** Hubs dropped and being resumed (viewers are told; no frames arrive meanwhile). */
	private readonly resuming = new Set<string>();

	constructor(
		private readonly events: HubEvents,
		private readonly options: StreamRelayOptions
	) {}

	/** Hubs with an open upstream connection. */
	open(): string[] {
		return [...this.hubs.values()].filter((h) => h.isOpen).map((h) => h.hub);
	}

	isOpen(hub: string): boolean {
		return this.hubs.get(hub)?.isOpen ?? false;
	}

	/** Connects one hub; undefined when it greeted, else how it ended. */
	connect(hub: string, url: string): Promise<HubEnd | undefined> {
		this.hubs.get(hub)?.close();
		return new Promise((resolve) => {
			let settled = false;
			// Reliable subprotocol when the upstream offers it: a blip resumes without a POST.
			const socket: ResumableHub = new ResumableHub(
				hub,
				url,
				{
					onGroupData: (group, any) => this.events.groupData(group, any),
					onRecovering: (end) => this.onRecovering(socket, end),
					onResumed: () => this.onResumed(socket),
					onEnd: (end) => {
						if (!settled) {
							settled = true;
							if (this.hubs.get(hub) === socket) this.hubs.delete(hub);
							if (end.slotTaken) this.events.slotTaken(end.reason);
							resolve(end);
							return;
						}
						this.onEnd(socket, end);
					}
				},
				{
					userAgent: this.options.userAgent,
					handshakeTimeoutMs: this.options.timeouts?.handshakeMs
				}
			);
			this.hubs.set(hub, socket);
			socket.ready.then(
				() => {
					if (settled) return;
					settled = true;
					this.events.connected();
					resolve(undefined);
				},
				() => undefined
			);
		});
	}

	/** Closes every hub without a word to the relay (a POST is about to kick them, slot lost). */
	retire(): void {
		this.resuming.clear();
		const sockets = [...this.hubs.values()];
		this.hubs.clear();
		for (const s of sockets) s.close();
	}

	/** Closes every hub (relay shutdown). */
	closeAll(): void {
		for (const h of this.hubs.values()) h.close();
		this.hubs.clear();
	}

	private onRecovering(socket: ResumableHub, end: HubEnd): void {
		if (this.hubs.get(socket.hub) !== socket || this.events.isClosed()) return;
		const first = !this.resuming.has(socket.hub);
		if (first) this.resuming.add(socket.hub);
		this.events.recovering(socket.hub, end, first);
	}

	private onResumed(socket: ResumableHub): void {
		if (this.hubs.get(socket.hub) !== socket) return;
		this.resuming.delete(socket.hub);
		this.events.resumed(socket.hub, this.resuming.size);
	}

	private onEnd(socket: ResumableHub, end: HubEnd): void {
		this.resuming.delete(socket.hub);
		if (this.hubs.get(socket.hub) !== socket) return; // retired by us
		this.hubs.delete(socket.hub);
		this.events.ended(socket.hub, end);
	}
}
