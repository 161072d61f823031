/**
 * The feed holder's streaming half: one relay viewer per client with no browser behind it (its
 * frames go nowhere; the relay publishes every frame on the update tap). The relay reference-
 * counts groups across its viewers, so two clients (or a client and a tab) holding the same feed
 * take one membership. Refusals, at subscribe time (membership limit) or later from the upstream
 * (a `revoked` message), are remembered per group as the reason the feed is not held.
 */
import { feedGroup, type Feed } from '../../contract/feeds';
import type { RelayViewer, StreamRelay } from '../stream/relay';
import { GEXDECK_CALLER, INTEGRATIONS_CALLER } from '../usage/callShares';

/** Relay states in which held groups deliver nothing. */
export const BROKEN: readonly string[] = ['error', 'slot-taken', 'reconnecting'];

/** A relay refusal as a reason a person reads. */
export function reasonOfRefusal(reason: string): string {
	return /membership limit/i.test(reason) ? `budget exhausted: ${reason}` : `refused: ${reason}`;
}

/** A viewer socket that drops frames and hands `revoked` refusals to `onRevoked`. */
function holderSocket(onRevoked: (refused: { group: string; reason: string }[]) => void) {
	return {
		readyState: 1,
		bufferedAmount: 0,
		send(data: Uint8Array | string, cb?: (err?: Error) => void) {
			if (typeof data === 'string' && data.includes('"revoked"')) {
				try {
					const m = JSON.parse(data) as {
						type: string;
						refused?: { group: string; reason: string }[];
					};
					if (m.type === 'revoked' && m.refused) onRevoked(m.refused);
				} catch {
					// not a message of ours to read
				}
			}
			cb?.();
		},
		close: () => undefined
	};
}

export type StreamState = { held: true } | { held: false; reason: string };

export class RelayHold {
	private viewer: RelayViewer | undefined;
	private held = new Set<string>();
	private readonly refused = new Map<string, string>();

	constructor(
		private readonly relay: StreamRelay,
		private readonly label: string,
		private readonly log: (message: string) => void
	) {}

	/**
	 * Brings the viewer to `feeds`. Groups it keeps are not touched; the ones it drops go first,
	 * so the memberships they free can take the new ones (budget before continuity: a group in
	 * both sets never leaves).
	 */
	/** Lets go of the groups not in `feeds` (the holder prunes every client before adding). */
	prune(feeds: readonly Feed[]): void {
		if (!this.viewer) return;
		const want = new Set(feeds.map(feedGroup));
		const gone = [...this.held].filter((g) => !want.has(g));
		if (gone.length === 0) return;
		this.relay.unsubscribe(this.viewer, gone);
		for (const g of gone) this.held.delete(g);
	}

	set(feeds: readonly Feed[]): void {
		const want = new Set(feeds.map(feedGroup));
		for (const g of [...this.refused.keys()]) if (!want.has(g)) this.refused.delete(g);
		if (want.size === 0) return this.close();
		this.viewer ??= this.relay.connect(
			holderSocket((refused) => {
				for (const r of refused) {
					this.refused.set(r.group, r.reason);
					this.held.delete(r.group);
				}
			}),
			this.label,
			// The levels client holds feeds for integration tokens; the others are the dashboard's.
			this.label === 'levels' ? INTEGRATIONS_CALLER : GEXDECK_CALLER
		);
		const gone = [...this.held].filter((g) => !want.has(g));
		if (gone.length > 0) this.relay.unsubscribe(this.viewer, gone);
		const added = [...want].filter((g) => !this.held.has(g));
		if (added.length > 0) {
			const r = this.relay.subscribe(this.viewer, added);
			for (const g of r.accepted) this.refused.delete(g);
			for (const x of r.refused) {
				this.refused.set(x.group, x.reason);
				this.log(`feeds: the relay refused ${x.group} for ${this.label}: ${x.reason}`);
			}
		}
		this.held = new Set(this.relay.status(this.viewer).groups.filter((g) => want.has(g)));
	}

	stateOf(feed: Feed): StreamState {
		const group = feedGroup(feed);
		const refusal = this.refused.get(group);
		if (refusal) return { held: false, reason: reasonOfRefusal(refusal) };
		if (!this.held.has(group)) return { held: false, reason: 'not subscribed' };
		if (BROKEN.includes(this.relay.state)) {
			return {
				held: false,
				reason: `stream ${this.relay.state}: ${this.relay.reason ?? 'no reason given'}`
			};
		}
		return { held: true };
	}

	close(): void {
		if (this.viewer) this.relay.disconnect(this.viewer);
		this.viewer = undefined;
		this.held.clear();
	}
}
