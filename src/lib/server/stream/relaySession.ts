/**
 * The stream relay's upstream session (see relay.ts): which negotiator (upstream and key) it
 * talks to, the hub URLs the last POST issued, and the membership set the upstream holds for the
 * slot; reconcile() brings the upstream to the union of the viewers' groups with as few
 * negotiations as possible (POST only when it must, PATCH otherwise, a dropped hub reconnected
 * with its still-valid URL). The relay owns the state shown to viewers and the retry loop.
 */
import { URL_TTL_MS } from '../../contract/hubs';
import type { RelayState } from '../../relay/protocol';
import { membershipKey, type UnionPlan } from './book';
import { NegotiationError, Negotiator } from './negotiator';
import type { RelayCounters, RelayTarget, StreamRelayOptions } from './relayOptions';
import type { UpstreamHubs } from './upstreamHubs';

/** What the session needs from its relay. */
export interface RelaySessionHost {
	readonly hubs: UpstreamHubs;
	readonly counters: RelayCounters;
	setState(state: RelayState, reason?: string): void;
	/** The upstream gave no URL for these hubs: their groups are refused (then re-planned). */
	refuseHubs(hubs: ReadonlySet<string>): void;
	/** Viewers learn the confirmed set. */
	broadcastStatus(): void;
	log(message: string): void;
}

export class RelaySession {
	private negotiator: Negotiator | undefined;
	/** `baseUrl key` of the negotiator, to notice a changed target. */
	private negotiatorId = '';
	private urls: Record<string, string> | undefined;
	private urlsAt = 0;
	/** Membership set the upstream holds for the slot, as far as the relay knows. */
	private appliedKey = '';

	constructor(
		private readonly host: RelaySessionHost,
		private readonly options: StreamRelayOptions,
		private readonly now: () => number
	) {}

	/** The hubs' URLs are no longer good (the slot was lost, the upstream lost the session). */
	forgetUrls(): void {
		this.urls = undefined;
	}

	/** The slot is gone: nothing negotiated is held any more. */
	forget(): void {
		this.urls = undefined;
		this.appliedKey = '';
	}

	async reconcile(plan: UnionPlan): Promise<void> {
		const { hubs, counters } = this.host;
		if (plan.memberships.length === 0 && this.appliedKey === '') {
			this.host.setState('idle');
			return;
		}
		const negotiator = await this.currentNegotiator();
		const wantKey = membershipKey(plan.memberships);
		if (plan.memberships.length === 0) {
			if (this.appliedKey !== '' && hubs.open().length > 0) {
				this.host.setState('negotiating');
				await negotiator.patch([]);
				counters.patches++;
			}
			this.appliedKey = '';
			this.host.setState('idle');
			return;
		}
		const missing = plan.usedHubs.filter((hub) => !hubs.isOpen(hub));
		// Connected hubs keep working past the URL window; only a hub still to connect needs a
		// fresh URL.
		const urlsUsable = this.urls !== undefined && this.now() - this.urlsAt <= this.urlTtl();
		let needPost = this.urls === undefined || (missing.length > 0 && !urlsUsable);
		if (!needPost) {
			for (const hub of missing) {
				const url = this.urls![hub];
				if (!url) {
					needPost = true;
					break;
				}
				const end = await hubs.connect(hub, url);
				if (end?.slotTaken) return;
				if (end?.refusedStatus === 429) {
					// Rate limited, not refused: the URL stays good, and a POST would only add load.
					throw new NegotiationError(429, `hub ${hub}: ${end.reason}`);
				}
				if (end?.refusedStatus !== undefined && end.refusedStatus < 500) {
					// Expired or superseded URL: only a new negotiation gives a usable one.
					this.host.log(`relay: ${hub} URL refused (${end.refusedStatus}: ${end.reason})`);
					needPost = true;
					break;
				}
				if (end) throw new NegotiationError(0, `hub ${hub}: ${end.reason}`);
			}
		}
		if (needPost) {
			this.host.setState('negotiating');
			// Our own sockets are about to be kicked by the POST: retire them so that kick is not
			// mistaken for another program taking the slot.
			hubs.retire();
			this.forget();
			const urls = await negotiator.post(plan.groups);
			counters.posts++;
			this.urls = urls;
			this.urlsAt = this.now();
			this.appliedKey = wantKey;
			// The upstream gives URLs only for hubs the key may use; asking again would not change
			// that, so the groups of the other hubs are refused instead of retried.
			const withoutUrl = new Set(plan.usedHubs.filter((hub) => !urls[hub]));
			if (withoutUrl.size > 0) this.host.refuseHubs(withoutUrl);
			const ends = await Promise.all(
				plan.usedHubs.filter((hub) => urls[hub]).map((hub) => hubs.connect(hub, urls[hub]))
			);
			if (ends.some((e) => e?.slotTaken)) return;
			const failed = ends.find((e) => e !== undefined);
			if (failed) throw new NegotiationError(0, failed.reason);
		} else if (this.appliedKey !== wantKey) {
			this.host.setState('negotiating');
			await negotiator.patch(plan.memberships);
			counters.patches++;
			this.appliedKey = wantKey;
		}
		this.host.setState('live');
		this.host.broadcastStatus();
	}

	/** The negotiator for the current target; a changed target drops the old session. */
	private async currentNegotiator(): Promise<Negotiator> {
		const t: RelayTarget = this.options.target
			? await this.options.target()
			: { baseUrl: this.options.baseUrl!, key: this.options.key };
		if (!t.key) throw new NegotiationError(401, 'No custom-script key is configured.');
		if (!/^https?:\/\//.test(t.baseUrl)) {
			throw new NegotiationError(0, `Upstream base URL must be http(s): ${t.baseUrl}`);
		}
		const id = `${t.baseUrl} ${t.key}`;
		if (!this.negotiator || id !== this.negotiatorId) {
			if (this.negotiator) {
				this.host.log('relay: upstream or key changed; negotiating afresh');
				this.host.hubs.retire();
				this.forget();
			}
			this.negotiator = new Negotiator({
				baseUrl: t.baseUrl,
				key: t.key,
				userAgent: this.options.userAgent,
				fetch: this.options.fetch,
				timeoutMs: this.options.timeouts?.negotiateMs
			});
			this.negotiatorId = id;
		}
		return this.negotiator;
	}

	private urlTtl(): number {
		return this.options.urlTtlMs ?? URL_TTL_MS - 60_000;
	}
}
