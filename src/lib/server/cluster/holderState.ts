/**
 * What the slot holder tells the other replicas through Redis (issue 30, cluster mode), beside
 * the frames: its relay state (streaming, reconnecting, refused and why), the groups of the
 * cluster-wide union it could not fit under the membership limit (per replica that asked), and
 * a user's "take the slot back" asked on any replica. Every key expires, so a dead holder's
 * state is not read as the truth for long.
 */
import type { Redis } from 'ioredis';
import type { RefusedGroup, RelayState } from '../../relay/protocol';
import { guarded } from './redis';

export interface HolderState {
	holder: string;
	state: RelayState;
	reason?: string;
}

export interface HolderStateKeys {
	state: string;
	/** Per replica: the replica id is appended. */
	refused: string;
	takeBack: string;
}

export function holderStateKeys(prefix: string): HolderStateKeys {
	return {
		state: `${prefix}:holderState`,
		refused: `${prefix}:refused:`,
		takeBack: `${prefix}:takeBack`
	};
}

export class HolderStateBoard {
	constructor(
		private readonly redis: Redis,
		private readonly keys: HolderStateKeys,
		private readonly ttlMs: number
	) {}

	/** The holder's relay state, kept for `ttlMs` (re-sent on every beat and change). */
	async write(state: HolderState): Promise<void> {
		await guarded(() => this.redis.set(this.keys.state, JSON.stringify(state), 'PX', this.ttlMs));
	}

	/** The holder's state, or undefined when no holder has said it lately. */
	async read(): Promise<HolderState | undefined> {
		const text = await guarded(() => this.redis.get(this.keys.state));
		return text ? (JSON.parse(text) as HolderState) : undefined;
	}

	/** Groups of `replica`'s viewers the union could not take (read once by that replica). */
	async refuse(replica: string, refused: RefusedGroup[]): Promise<void> {
		if (refused.length === 0) return;
		const key = this.keys.refused + replica;
		await guarded(() =>
			this.redis
				.multi()
				.rpush(key, ...refused.map((r) => JSON.stringify(r)))
				.pexpire(key, this.ttlMs * 10)
				.exec()
		);
	}

	/** The refusals addressed to `replica` since it last asked (taken, so each is applied once). */
	async takeRefusals(replica: string): Promise<RefusedGroup[]> {
		const key = this.keys.refused + replica;
		const [[, list]] = (await guarded(() =>
			this.redis.multi().lrange(key, 0, -1).del(key).exec()
		)) as [[Error | null, string[]]];
		return (list ?? []).map((r) => JSON.parse(r) as RefusedGroup);
	}

	/** A user on any replica asked to take the slot back from another program. */
	async askTakeBack(): Promise<void> {
		await guarded(() => this.redis.set(this.keys.takeBack, '1', 'PX', this.ttlMs * 5));
	}

	/** Whether a take-back was asked (the holder takes the request). */
	async takeTakeBack(): Promise<boolean> {
		return (await guarded(() => this.redis.del(this.keys.takeBack))) === 1;
	}
}

/**
 * A replica that does not hold the slot reports the holder's state to its viewers: `standby`
 * (streaming through the holder) while the holder streams, the holder's own state and reason
 * while it cannot (the viewers then poll), `reconnecting` while no replica holds the slot.
 */
export function standbyState(h: HolderState | undefined): { state: RelayState; reason: string } {
	if (!h || h.state === 'closed' || h.state === 'standby') {
		return {
			state: 'reconnecting',
			reason: 'No replica holds the upstream slot at the moment; another takes it within seconds.'
		};
	}
	if (h.state === 'live' || h.state === 'negotiating' || h.state === 'idle') {
		return {
			state: 'standby',
			reason: `Replica ${h.holder} holds the upstream slot; frames arrive through Redis.`
		};
	}
	return {
		state: h.state,
		reason: `Replica ${h.holder} holds the upstream slot: ${h.reason ?? h.state}`
	};
}
