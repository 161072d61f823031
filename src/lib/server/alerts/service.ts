/**
 * The alerts service: rules from the database (store.ts) evaluated on every update of the rules'
 * feeds the dashboard server receives, whether or not a tab is open, and each firing stored
 * (firingLog.ts) and, when this process's insert of it won, delivered to the open tabs
 * (listeners: the SSE endpoint) and to webhooks.
 *
 * The data its rules need is held by the feed holder (server/feeds) as its 'alerts' client:
 * a relay viewer on a streaming (Quant) account, a once-a-second poll in market hours on any
 * other, as the holder decides. The service hands the holder the rules' feeds and reads their
 * updates, decoded once, from the client's subscription.
 *
 * Independent of SvelteKit (./alertsMount wires it to the dashboard's config), so integration
 * tests run it against a real relay, proxy and service.
 */
import { AlertEngine, streamOfRule, type Firing } from '../../alerts/engine';
import {
	describeRule,
	groupOfRule,
	MAX_WEBHOOKS_PER_RULE,
	parseRule,
	parseWebhook,
	type AlertRule,
	type Parsed,
	type Webhook
} from '../../alerts/rules';
import type { Database } from '../db/index';
import type { FeedClient, FeedMode, FeedUpdate } from '../feeds';
import { toAlertFiring, type AlertFiring } from '../../alerts/firing';
import { observationOf } from './observe';
import type { AlertsFile } from './alertsFile';
import { FiringFollower } from './firingFollower';
import { FiringLog, firingKey } from './firingLog';
import { feedStatusOf, feedsOfRules, refusedFeeds, type FeedStatus } from './ruleFeeds';
import {
	AlertStore,
	IMPLICIT_OWNER,
	mayTouch,
	ownedBy,
	OWNER_ASKER,
	visibleTo,
	type AlertsState,
	type Asker
} from './store';
import { exportFor, newId, planImport } from './transfer';
import type { QueueStats } from './deliveryQueue';
import {
	ruleTestFiring,
	ruleWebhookRefusal,
	webhookRefusal,
	webhookTestFiring
} from './webhookRules';
import { WebhookSender, type SenderOptions, type WebhookHealth } from './webhooks';

export { FIRINGS_KEPT } from './firingLog';

/** The error of a save naming an id its asker may not see (answered 404, like no such id). */
export const NOT_FOUND = 'not found';

/** How often the rules are read again for changes made by another process. */
const RELOAD_MS = 2000;

export type { FeedMode, FeedStatus };

export interface AlertServiceOptions {
	/** The records' database (rules, webhooks, firings). */
	db: Database;
	/** The feed holder's 'alerts' client: holds the rules' feeds, delivers their updates. */
	feeds: FeedClient;
	sender?: SenderOptions;
	/** Read the rules again every RELOAD_MS for another process's changes (default true). */
	watch?: boolean;
	/** Cluster mode: hand the firings other replicas delivered to this one's tabs too. */
	followFirings?: boolean;
	log?: (message: string) => void;
}

export interface RuleView {
	rule: AlertRule;
	description: string;
	/** The user id of the rule's owner (IMPLICIT_OWNER: the single-user mode's admin). */
	owner: string;
	/** Data time (unix ms) of the rule's last firing, as in the firing log. */
	lastFiredAt: number | null;
	/** Why the rule does not get its data, if it does not. */
	feedError: string | null;
}

/** Receives each firing this process delivers, with the owner of its rule. */
export type FiringListener = (firing: AlertFiring, owner: string) => void;

/**
 * The origin firing links use: the first one a save came from, or the same host with the scheme
 * the dashboard really serves (a link saved as https:// on a plain-http dashboard is corrected).
 */
function linkOrigin(stored: string | null | undefined, seen: string | undefined) {
	if (!stored || !seen) return stored || seen || null;
	const a = new URL(stored);
	const b = new URL(seen);
	return a.host === b.host && a.protocol !== b.protocol ? seen : stored;
}

export class AlertService {
	readonly store: AlertStore;
	readonly engine = new AlertEngine();
	readonly sender: WebhookSender;
	/** Updates whose decoding or evaluation failed (counted, skipped). */
	failures = 0;
	lastFailure: string | null = null;
	readonly firingLog: FiringLog;
	private readonly listeners = new Set<FiringListener>();
	private lastFired = new Map<string, number>();
	private unsubscribeFeeds: (() => void) | undefined;
	private reloadTimer: ReturnType<typeof setInterval> | undefined;
	/** Firings being stored and delivered (idle() waits for them). */
	private readonly pending = new Set<Promise<unknown>>();
	private evaluating = true;
	/** Bumped by every setEvaluating (a take-over let go of meanwhile does not subscribe). */
	private turn = 0;
	private started = false;
	private readonly follower: FiringFollower | undefined;
	private readonly log: (message: string) => void;

	constructor(private readonly options: AlertServiceOptions) {
		this.log = options.log ?? (() => undefined);
		this.store = new AlertStore(options.db, this.log);
		this.firingLog = new FiringLog(options.db);
		this.sender = new WebhookSender({ log: this.log, ...options.sender });
		if (options.followFirings)
			this.follower = new FiringFollower(options.db, (f, owner) => this.tell(f, owner), this.log);
	}

	/**
	 * Whether the rules are evaluated here (cluster mode: the slot holder only, alertsMount.ts): off
	 * lets go of their feeds; on (a take-over) restarts the engine from the log and holds them.
	 */
	async setEvaluating(on: boolean): Promise<void> {
		if (on === this.evaluating) return;
		this.evaluating = on;
		const turn = ++this.turn;
		if (!on) {
			this.unsubscribeFeeds?.();
			this.unsubscribeFeeds = undefined;
			this.options.feeds.release();
		} else if (this.started) {
			this.applyRules();
			await this.resume();
			if (turn !== this.turn) return;
			this.unsubscribeFeeds ??= this.options.feeds.subscribe((u) => this.onUpdate(u));
		}
	}

	/** The engine afresh, each rule's cooldown from its last firing in the log (any process's). */
	private async resume(): Promise<void> {
		try {
			this.lastFired = await this.firingLog.lastFired();
		} catch (e) {
			this.log(`alerts: cannot read the last firings: ${(e as Error).message}`);
		}
		this.engine.restart(new Map([...this.lastFired].map(([id, ms]) => [id, ms / 1000])));
	}

	/**
	 * Loads the rules and the last firing times, holds the rules' feeds and reads their updates
	 * (while evaluating), and reads the rules again every RELOAD_MS (another replica may change
	 * them).
	 */
	async start(): Promise<this> {
		await this.store.load();
		this.applyRules();
		await this.resume();
		this.started = true;
		if (this.evaluating) {
			this.unsubscribeFeeds ??= this.options.feeds.subscribe((u) => this.onUpdate(u));
		}
		await this.follower?.start();
		if (this.options.watch !== false && !this.reloadTimer) {
			this.reloadTimer = setInterval(() => {
				this.store.load().then(
					(changed) => changed && this.applyRules(),
					(e: Error) => this.log(`alerts: cannot read the rules: ${e.message}`)
				);
			}, RELOAD_MS);
			this.reloadTimer.unref?.();
		}
		return this;
	}

	/** Resolves once the firings seen so far are stored and handed to their listeners. */
	async idle(): Promise<void> {
		while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
	}

	get state(): AlertsState {
		return this.store.state;
	}

	// ---- evaluation ----------------------------------------------------------------------

	private onUpdate(update: FeedUpdate): void {
		let firings: Firing[];
		try {
			const obs = observationOf(update, this.engine);
			if (!obs) return;
			firings = this.engine.observe(obs);
		} catch (e) {
			this.failures++;
			this.lastFailure = (e as Error).message;
			if (this.failures === 1 || this.failures % 1000 === 0) {
				this.log(`alerts: skipped an update (${this.failures}): ${this.lastFailure}`);
			}
			return;
		}
		for (const f of firings) {
			const rule = this.store.state.rules.find((r) => r.id === f.ruleId);
			if (rule) {
				const firing = toAlertFiring(rule, f, { publicUrl: this.store.state.publicUrl });
				const done = this.emit(rule, firing).catch((e: Error) =>
					this.log(`alerts: cannot store a firing of ${rule.id}: ${e.message}`)
				);
				this.pending.add(done);
				void done.finally(() => this.pending.delete(done));
			}
		}
	}

	/**
	 * Stores a firing and, when this process's insert of it won (no other process stored the same
	 * rule at the same data time), delivers it to the tabs and the webhooks. Resolves to whether
	 * it was delivered here.
	 */
	private async emit(rule: AlertRule, firing: AlertFiring): Promise<boolean> {
		const owner = this.ownerOfRule(rule.id);
		const key = firingKey(firing);
		this.follower?.markSeen(key, firing.firedAt);
		if (!(await this.firingLog.record(firing, owner))) {
			this.follower?.forget(key);
			return false;
		}
		if (!firing.test) this.lastFired.set(rule.id, firing.at * 1000);
		this.tell(firing, owner);
		// "Every webhook" and the named ones are the rule owner's own.
		const hooks = ownedBy(this.store.state, owner).webhooks.filter(
			(w) => !w.paused && (rule.webhooks === null || rule.webhooks.includes(w.id))
		);
		// A row edited in the database may name more; a firing never fans out past the bound.
		for (const hook of hooks.slice(0, MAX_WEBHOOKS_PER_RULE)) void this.sender.send(hook, firing);
		return true;
	}

	/** Hands a firing to the open tabs' streams (each picks its owner's). */
	private tell(firing: AlertFiring, owner: string): void {
		for (const l of this.listeners) {
			try {
				l(firing, owner);
			} catch {
				// a closed tab's stream; it unsubscribes itself
			}
		}
	}

	private ownerOfRule(id: string): string {
		return this.store.state.ruleOwner.get(id) ?? IMPLICIT_OWNER;
	}

	/** Every open tab's stream subscribes here; the returned function unsubscribes. */
	onFiring(listener: FiringListener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** The last firings `who` sees (an admin: everyone's), newest first. */
	firings(who: Asker = OWNER_ASKER): Promise<AlertFiring[]> {
		return this.firingLog.latest(who.role === 'admin' ? undefined : who.id);
	}

	// ---- rules ---------------------------------------------------------------------------

	private applyRules(): void {
		this.engine.setRules(this.store.state.rules);
		this.syncFeed();
	}

	/** The rules `who` sees (an admin: everyone's), with each one's owner. */
	rules(who: Asker = OWNER_ASKER): RuleView[] {
		const feedErrors = new Map(refusedFeeds(this.options.feeds).map((r) => [r.group, r.reason]));
		return visibleTo(this.store.state, who).rules.map((rule) => ({
			rule,
			owner: this.ownerOfRule(rule.id),
			description: describeRule(rule),
			lastFiredAt: this.lastFired.get(rule.id) ?? null,
			feedError: rule.paused ? null : (feedErrors.get(groupOfRule(rule)) ?? null)
		}));
	}

	/**
	 * Adds (as `who`'s) or replaces (same id, owner kept) a rule from a form or an API; a bad
	 * rule changes nothing, and an id `who` may not change answers NOT_FOUND.
	 */
	async saveRule(
		input: Record<string, unknown>,
		publicUrl?: string,
		who: Asker = OWNER_ASKER
	): Promise<Parsed<AlertRule>> {
		const raw = { ...input, id: input.id || newId('r') };
		const parsed = parseRule(raw);
		if (!parsed.ok) return parsed;
		const held = this.store.state.ruleOwner.get(parsed.value.id);
		if (held !== undefined && !mayTouch(who, held)) return { ok: false, error: NOT_FOUND };
		const owner = held ?? who.id;
		const refused = ruleWebhookRefusal(ownedBy(this.store.state, owner), parsed.value);
		if (refused) return { ok: false, error: refused };
		await this.store.saveRule(owner, parsed.value, this.newOrigin(publicUrl));
		this.applyRules();
		return parsed;
	}

	/** The public URL to store when a save came from `seen`, if it changes the stored one. */
	private newOrigin(seen: string | undefined): string | null {
		const next = linkOrigin(this.store.state.publicUrl, seen);
		return next !== this.store.state.publicUrl ? next : null;
	}

	/** Whether `who` may see and change the rule `id` (false when there is none). */
	mayChangeRule(id: string, who: Asker): boolean {
		return mayTouch(who, this.store.state.ruleOwner.get(id));
	}

	mayChangeWebhook(id: string, who: Asker): boolean {
		return mayTouch(who, this.store.state.hookOwner.get(id));
	}

	async deleteRule(id: string, who: Asker = OWNER_ASKER): Promise<boolean> {
		if (!this.mayChangeRule(id, who)) return false;
		const gone = await this.store.deleteRule(id);
		this.applyRules();
		return gone;
	}

	async setRulePaused(id: string, paused: boolean, who: Asker = OWNER_ASKER): Promise<boolean> {
		const rule = this.store.state.rules.find((r) => r.id === id);
		if (!rule || !this.mayChangeRule(id, who)) return false;
		return (await this.saveRule({ ...rule, paused }, undefined, who)).ok;
	}

	/**
	 * Adds or replaces (same id) the rules and webhooks of an uploaded export as `who`'s, all or
	 * nothing: a file that is too large, not JSON, or holds one bad entry changes nothing, and
	 * the errors name each bad entry (transfer.ts).
	 */
	async importFile(
		text: string,
		who: Asker = OWNER_ASKER
	): Promise<{ ok: true; rules: number; webhooks: number } | { ok: false; errors: string[] }> {
		const plan = planImport(this.store.state, who, text);
		if (!plan.ok) return plan;
		await this.store.importEntries(who.id, plan);
		this.applyRules();
		return { ok: true, rules: plan.rules.length, webhooks: plan.webhooks.length };
	}

	/** The rules and webhooks `who` sees as one JSON document (the import reads it back). */
	exportFile(who: Asker = OWNER_ASKER): AlertsFile {
		return exportFor(this.store.state, who);
	}

	/** Fires a rule now with the latest values it has seen, marked as a test. */
	async testRule(id: string, who: Asker = OWNER_ASKER): Promise<AlertFiring | undefined> {
		const rule = this.store.state.rules.find((r) => r.id === id);
		if (!rule || !this.mayChangeRule(id, who)) return undefined;
		const chain = this.engine.latestChain(rule.ticker, streamOfRule(rule));
		const firing = ruleTestFiring(rule, chain, this.store.state.publicUrl);
		await this.emit(rule, firing);
		return firing;
	}

	// ---- webhooks ------------------------------------------------------------------------

	webhooks(who: Asker = OWNER_ASKER): { webhook: Webhook; owner: string; health: WebhookHealth }[] {
		return visibleTo(this.store.state, who).webhooks.map((webhook) => ({
			webhook,
			owner: this.store.state.hookOwner.get(webhook.id) ?? IMPLICIT_OWNER,
			health: this.sender.healthOf(webhook.id)
		}));
	}

	/**
	 * Adds or replaces a webhook once its host resolves to an address it may reach (checked
	 * again at every delivery: DNS may change).
	 */
	async saveWebhook(
		input: Record<string, unknown>,
		publicUrl?: string,
		who: Asker = OWNER_ASKER
	): Promise<Parsed<Webhook>> {
		const parsed = parseWebhook({ ...input, id: input.id || newId('w') });
		if (!parsed.ok) return parsed;
		const held = this.store.state.hookOwner.get(parsed.value.id);
		if (held !== undefined && !mayTouch(who, held)) return { ok: false, error: NOT_FOUND };
		const owner = held ?? who.id;
		const mine = ownedBy(this.store.state, owner);
		const refused = await webhookRefusal(mine, parsed.value, this.sender);
		if (refused) return { ok: false, error: refused };
		await this.store.saveWebhook(owner, parsed.value, this.newOrigin(publicUrl));
		this.applyRules();
		return parsed;
	}

	/** Deletes a webhook and removes it from the rules that named it. */
	async deleteWebhook(id: string, who: Asker = OWNER_ASKER): Promise<boolean> {
		if (!this.mayChangeWebhook(id, who)) return false;
		const gone = await this.store.deleteWebhook(id);
		this.applyRules();
		if (gone) this.sender.forget(id);
		return gone;
	}

	/** The process's delivery queue: in flight, waiting, dropped, and its bounds. */
	deliveryStats(): QueueStats {
		return this.sender.queue.stats();
	}

	/** Sends a test message to one webhook, once; resolves with whether it was delivered. */
	testWebhook(id: string, who: Asker = OWNER_ASKER): Promise<boolean> {
		const hook = this.store.state.webhooks.find((w) => w.id === id);
		if (!hook || !this.mayChangeWebhook(id, who)) return Promise.resolve(false);
		const firing = webhookTestFiring(hook, this.store.state.publicUrl);
		return this.sender.send(hook, firing, 1);
	}

	// ---- feed ----------------------------------------------------------------------------

	feedStatus(): FeedStatus {
		return feedStatusOf(this.options.feeds, this.store.state.rules);
	}

	/** Hands the holder the feeds of the rules not paused. */
	private syncFeed(): void {
		if (this.evaluating) this.options.feeds.hold(feedsOfRules(this.store.state.rules));
	}

	close(): void {
		this.unsubscribeFeeds?.();
		this.unsubscribeFeeds = undefined;
		this.options.feeds.release();
		clearInterval(this.reloadTimer);
		this.reloadTimer = undefined;
		this.follower?.close();
		this.sender.close();
	}
}
