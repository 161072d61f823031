/**
 * The tick fan-out: on every calculation tick, each group with at least one member is encoded
 * ONCE (Any bytes -> base64 -> envelope string) and that same string is sent to every member,
 * as soon as it is encoded.
 * Groups without members cost nothing: the walk starts from the live connections.
 */
import type { TickEvent } from '../source';
import type { HubConnection } from './connection';
import { groupDataText } from '../../lib/contract/pubsub';
import type { SlotManager } from './slots';

/** base64 of the `google.protobuf.Any` of one group at one tick; undefined when it has no frame. */
export type GroupEncoder = (group: string, tick: TickEvent) => string | undefined;

export interface FanoutStats {
	/** Distinct groups encoded this tick. */
	groupsEncoded: number;
	/** Frames handed to connections. */
	framesSent: number;
	/** Sum of the frame bytes of the distinct groups (each counted once). */
	encodedBytes: number;
	/** Wall time of the whole delivery (encoding and handing frames to the sockets), ms. */
	elapsedMs: number;
	/**
	 * Process CPU time (user + system) consumed during the delivery, ms: unlike wall time it is
	 * not inflated when the machine is busy with other processes.
	 */
	cpuMs: number;
	/** Frames not sent because the connection was closed (slow consumer, or closing). */
	framesDropped: number;
}

export class Fanout {
	constructor(
		private readonly slots: SlotManager,
		private readonly encode: GroupEncoder
	) {}

	/** Delivers one tick; returns what it did (bench and tests read it). */
	deliver(tick: TickEvent): FanoutStats {
		const started = performance.now();
		const cpuStarted = process.cpuUsage();
		const stats: FanoutStats = {
			elapsedMs: 0,
			cpuMs: 0,
			groupsEncoded: 0,
			framesSent: 0,
			encodedBytes: 0,
			framesDropped: 0
		};
		// The walk first, without encoding: a connection closed for overflow while frames are sent
		// leaves its slot's set, which must not happen while that set is being iterated.
		const targets: [conn: HubConnection, name: string, group: string][] = [];
		for (const slot of this.slots.liveSlots()) {
			const prefixLength = slot.session?.prefix ? slot.session.prefix.length + 1 : 0;
			for (const conn of slot.connections) {
				if (!conn.receiving) continue;
				for (const name of slot.groupsOf(conn)) {
					targets.push([conn, name, conn.flow === 'legacy' ? name.slice(prefixLength) : name]);
				}
			}
		}
		// Then each group is encoded when first needed and its frame sent at once: the first
		// groups are on the wire while the later ones are still being encoded (a tick of 150
		// groups took tens of ms to encode before its first frame left; tick-to-pixel, issue 26).
		// data group -> base64 (null: no frame this tick); delivered name -> envelope string.
		const encoded = new Map<string, string | null>();
		const envelopes = new Map<string, string | null>();
		for (const [conn, name, group] of targets) {
			let envelope = envelopes.get(name);
			if (envelope === undefined) {
				let data = encoded.get(group);
				if (data === undefined) {
					data = this.encode(group, tick) ?? null;
					encoded.set(group, data);
					if (data !== null) {
						stats.groupsEncoded++;
						stats.encodedBytes += data.length;
					}
				}
				envelope = data === null ? null : groupDataText(name, data);
				envelopes.set(name, envelope);
			}
			if (envelope === null) continue;
			if (conn.deliver(envelope)) stats.framesSent++;
			else if (!conn.isOpen) stats.framesDropped++;
		}
		stats.elapsedMs = performance.now() - started;
		const cpu = process.cpuUsage(cpuStarted);
		stats.cpuMs = (cpu.user + cpu.system) / 1000;
		return stats;
	}
}
