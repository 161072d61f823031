/**
 * The alerts service: rules from alerts.json evaluated on every update of the rules' feeds the
 * dashboard server receives, whether or not a tab is open, and each firing delivered to the open
 * tabs (listeners: the SSE endpoint), to webhooks, and to the last-100 log.
 *
 * The data its rules need is held by the feed holder (server/feeds) as its 'alerts' client:
 * a relay viewer on a streaming (Quant) account, a once-a-second poll in market hours on any
 * other, as the holder decides. The service hands the holder the rules' feeds and reads their
 * updates, decoded once, from the client's subscription.
 *
 * Independent of SvelteKit (./alertsMount wires it to the dashboard's config), so integration
 * tests run it against a real relay, proxy and service.
 */
import { join } from 'node:path';
import { AlertEngine, streamOfRule, type Firing } from '../../alerts/engine';
import {
	describeRule,
	feedOfRule,
	groupOfRule,
	MAX_WEBHOOKS_PER_RULE,
	parseRule,
	parseWebhook,
	type AlertRule,
	type Parsed,
	type Webhook
} from '../../alerts/rules';
import { feedGroup } from '../../contract/feeds';
import type { FeedClient, FeedMode, FeedUpdate } from '../feeds';
import { readJsonFile, writeJsonFile } from '../jsonFile';
import { SubscriptionBook } from '../stream/book';
import { toAlertFiring, type AlertFiring } from '../../alerts/firing';
import { observationOf } from './observe';
import { AlertStore, idOf, type AlertsState } from './store';
import type { QueueStats } from './deliveryQueue';
import { ruleWebhookRefusal, webhookRefusal, webhookTestFiring } from './webhookRules';
import { WebhookSender, type SenderOptions, type WebhookHealth } from './webhooks';

export const FIRINGS_KEPT = 100;

export type { FeedMode };

/** Reasons of a feed not held that are a refusal to show on its rule (not a pause or a wait). */
const REFUSAL = /^(budget exhausted|not entitled|key rejected|refused)\b/;

export interface AlertServiceOptions {
	/** Folder of alerts.json and alerts-firings.json. */
	dataDir: string;
	/** The feed holder's 'alerts' client: holds the rules' feeds, delivers their updates. */
	feeds: FeedClient;
	sender?: SenderOptions;
	/** Re-read alerts.json when it changes on disk (default true). */
	watch?: boolean;
	log?: (message: string) => void;
}

export interface FeedStatus {
	mode: FeedMode;
	/** Groups of the feeds the rules need. */
	needed: string[];
	/** Feeds refused for the rules, with the reason (budget exhausted, not entitled, ...). */
	refused: { group: string; reason: string }[];
	/** Memberships of the whole union (tabs and rules) against the account's limit. */
	usage: { used: number; limit: number } | null;
	/** Memberships the rules' groups take on their own (spot included). */
	rulesNeed: number;
	/** Streaming: why the relay is not delivering (slot taken, upstream refusal), else null. */
	streamProblem: string | null;
}

export interface RuleView {
	rule: AlertRule;
	description: string;
	/** Data time (unix ms) of the rule's last firing, as in the firing log. */
	lastFiredAt: number | null;
	/** Why the rule does not get its data, if it does not. */
	feedError: string | null;
}

export type FiringListener = (firing: AlertFiring) => void;

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
	private readonly firingsPath: string;
	private firingLog: AlertFiring[];
	private readonly listeners = new Set<FiringListener>();
	private readonly lastFired = new Map<string, number>();
	private unsubscribeFeeds: (() => void) | undefined;
	private evaluating = true;
	private started = false;
	private saveTimer: ReturnType<typeof setTimeout> | undefined;
	private readonly log: (message: string) => void;

	constructor(private readonly options: AlertServiceOptions) {
		this.log = options.log ?? (() => undefined);
		this.store = new AlertStore(join(options.dataDir, 'alerts.json'), this.log);
		this.sender = new WebhookSender({ log: this.log, ...options.sender });
		this.firingsPath = join(options.dataDir, 'alerts-firings.json');
		let stored: AlertFiring[] = [];
		try {
			stored = readJsonFile<AlertFiring[]>(this.firingsPath) ?? [];
		} catch (e) {
			this.log(`alerts: ${(e as Error).message}; the firing log starts empty`);
		}
		this.firingLog = Array.isArray(stored) ? stored.slice(-FIRINGS_KEPT) : [];
		for (const f of this.firingLog) if (!f.test) this.lastFired.set(f.ruleId, f.at * 1000);
	}

	/**
	 * Whether the rules are evaluated here (cluster mode: on the slot holder only, see
	 * alertsMount.ts): off lets go of their feeds and reads no update; on holds them again.
	 */
	setEvaluating(on: boolean): void {
		if (on === this.evaluating) return;
		this.evaluating = on;
		if (!on) {
			this.unsubscribeFeeds?.();
			this.unsubscribeFeeds = undefined;
			this.options.feeds.release();
		} else if (this.started) this.start();
	}

	/** Loads the rules, holds their feeds and reads their updates, and starts watching the file. */
	start(): this {
		this.applyRules();
		if (!this.started && this.options.watch !== false) this.store.watch(() => this.applyRules());
		this.started = true;
		if (this.evaluating) {
			this.unsubscribeFeeds ??= this.options.feeds.subscribe((u) => this.onUpdate(u));
		}
		return this;
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
			if (rule)
				this.emit(rule, toAlertFiring(rule, f, { publicUrl: this.store.state.file.publicUrl }));
		}
	}

	/** Delivers a firing: log, tabs, webhooks. */
	private emit(rule: AlertRule, firing: AlertFiring, onlyHook?: Webhook): void {
		this.firingLog.push(firing);
		if (this.firingLog.length > FIRINGS_KEPT)
			this.firingLog.splice(0, this.firingLog.length - FIRINGS_KEPT);
		if (!firing.test) this.lastFired.set(rule.id, firing.at * 1000);
		this.scheduleSave();
		for (const l of this.listeners) {
			try {
				l(firing);
			} catch {
				// a closed tab's stream; it unsubscribes itself
			}
		}
		const hooks = onlyHook
			? [onlyHook]
			: this.store.state.webhooks.filter(
					(w) => !w.paused && (rule.webhooks === null || rule.webhooks.includes(w.id))
				);
		// A hand-edited file may name more; a firing never fans out past the bound.
		for (const hook of hooks.slice(0, MAX_WEBHOOKS_PER_RULE)) void this.sender.send(hook, firing);
	}

	private scheduleSave(): void {
		if (this.saveTimer) return;
		// At most one write a second, however often rules fire.
		this.saveTimer = setTimeout(() => {
			this.saveTimer = undefined;
			try {
				writeJsonFile(this.firingsPath, this.firingLog);
			} catch (e) {
				this.log(`alerts: cannot save the firing log: ${(e as Error).message}`);
			}
		}, 1000);
		this.saveTimer.unref?.();
	}

	/** Every open tab's stream subscribes here; the returned function unsubscribes. */
	onFiring(listener: FiringListener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** The last firings, newest first. */
	firings(): AlertFiring[] {
		return [...this.firingLog].reverse();
	}

	// ---- rules ---------------------------------------------------------------------------

	private applyRules(): void {
		this.engine.setRules(this.store.state.rules);
		this.syncFeed();
	}

	rules(): RuleView[] {
		const feedErrors = new Map(this.refusals().map((r) => [r.group, r.reason]));
		return this.store.state.rules.map((rule) => ({
			rule,
			description: describeRule(rule),
			lastFiredAt: this.lastFired.get(rule.id) ?? null,
			feedError: rule.paused ? null : (feedErrors.get(groupOfRule(rule)) ?? null)
		}));
	}

	/** Adds or replaces (same id) a rule from a form or an API; a bad rule changes nothing. */
	saveRule(input: Record<string, unknown>, publicUrl?: string): Parsed<AlertRule> {
		const raw = { ...input, id: input.id || newId('r') };
		const parsed = parseRule(raw);
		if (!parsed.ok) return parsed;
		const refused = ruleWebhookRefusal(this.store.state, parsed.value);
		if (refused) return { ok: false, error: refused };
		this.update((file) => {
			const i = file.rules.findIndex((r) => idOf(r) === parsed.value.id);
			if (i >= 0) file.rules[i] = parsed.value;
			else file.rules.push(parsed.value);
			file.publicUrl = linkOrigin(file.publicUrl, publicUrl);
		});
		return parsed;
	}

	deleteRule(id: string): boolean {
		if (!this.store.state.file.rules.some((r) => idOf(r) === id)) return false;
		this.update((file) => {
			file.rules = file.rules.filter((r) => idOf(r) !== id);
		});
		return true;
	}

	setRulePaused(id: string, paused: boolean): boolean {
		const rule = this.store.state.rules.find((r) => r.id === id);
		if (!rule) return false;
		return this.saveRule({ ...rule, paused }).ok;
	}

	/** Fires a rule now with the latest values it has seen, marked as a test. */
	testRule(id: string): AlertFiring | undefined {
		const rule = this.store.state.rules.find((r) => r.id === id);
		if (!rule) return undefined;
		const chain = this.engine.latestChain(rule.ticker, streamOfRule(rule));
		const at = chain?.t ?? Math.floor(Date.now() / 1000);
		const values: Record<string, number> = {};
		if (chain) {
			values.spot = chain.spot;
			if ('level' in rule && rule.level !== 'price' && rule.level !== 'max_change') {
				values.level = chain[rule.level];
			}
		}
		const firing = toAlertFiring(
			rule,
			{
				ruleId: rule.id,
				ticker: rule.ticker,
				kind: rule.kind,
				at,
				message: `Test: ${describeRule(rule)}`,
				values
			},
			{ publicUrl: this.store.state.file.publicUrl, test: true }
		);
		this.emit(rule, firing);
		return firing;
	}

	// ---- webhooks ------------------------------------------------------------------------

	webhooks(): { webhook: Webhook; health: WebhookHealth }[] {
		return this.store.state.webhooks.map((webhook) => ({
			webhook,
			health: this.sender.healthOf(webhook.id)
		}));
	}

	/**
	 * Adds or replaces a webhook once its host resolves to an address it may reach (checked
	 * again at every delivery: DNS may change).
	 */
	async saveWebhook(input: Record<string, unknown>, publicUrl?: string): Promise<Parsed<Webhook>> {
		const parsed = parseWebhook({ ...input, id: input.id || newId('w') });
		if (!parsed.ok) return parsed;
		const refused = await webhookRefusal(this.store.state, parsed.value, this.sender);
		if (refused) return { ok: false, error: refused };
		this.update((file) => {
			const i = file.webhooks.findIndex((w) => idOf(w) === parsed.value.id);
			if (i >= 0) file.webhooks[i] = parsed.value;
			else file.webhooks.push(parsed.value);
			file.publicUrl = linkOrigin(file.publicUrl, publicUrl);
		});
		return parsed;
	}

	/** Deletes a webhook and removes it from the rules that named it. */
	deleteWebhook(id: string): boolean {
		if (!this.store.state.file.webhooks.some((w) => idOf(w) === id)) return false;
		this.update((file) => {
			file.webhooks = file.webhooks.filter((w) => idOf(w) !== id);
			for (const r of file.rules) {
				const hooks = (r as { webhooks?: unknown }).webhooks;
				if (Array.isArray(hooks))
					(r as { webhooks: unknown[] }).webhooks = hooks.filter((h) => h !== id);
			}
		});
		this.sender.forget(id);
		return true;
	}

	/** The process's delivery queue: in flight, waiting, dropped, and its bounds. */
	deliveryStats(): QueueStats {
		return this.sender.queue.stats();
	}

	/** Sends a test message to one webhook, once; resolves with whether it was delivered. */
	testWebhook(id: string): Promise<boolean> {
		const hook = this.store.state.webhooks.find((w) => w.id === id);
		if (!hook) return Promise.resolve(false);
		const firing = webhookTestFiring(hook, this.store.state.file.publicUrl);
		return this.sender.send(hook, firing, 1);
	}

	private update(change: Parameters<AlertStore['update']>[0]): void {
		this.store.update(change);
		this.applyRules();
	}

	// ---- feed ----------------------------------------------------------------------------

	private refusals(): { group: string; reason: string }[] {
		return this.options.feeds
			.status()
			.feeds.filter((f) => !f.held && f.reason && REFUSAL.test(f.reason))
			.map((f) => ({ group: f.group, reason: f.reason! }));
	}

	feedStatus(): FeedStatus {
		const status = this.options.feeds.status();
		const needed = this.neededGroups();
		const own = new SubscriptionBook<string>(Number.MAX_SAFE_INTEGER);
		own.add('rules', needed);
		return {
			mode: status.mode,
			needed,
			rulesNeed: own.plan().usage.used,
			refused: this.refusals(),
			usage: status.usage,
			streamProblem: status.streamProblem
		};
	}

	private neededGroups(): string[] {
		return [...new Set(this.store.state.rules.filter((r) => !r.paused).map(groupOfRule))].sort();
	}

	/** Hands the holder the feeds of the rules not paused. */
	private syncFeed(): void {
		if (!this.evaluating) return;
		const feeds = new Map(
			this.store.state.rules
				.filter((r) => !r.paused)
				.map(feedOfRule)
				.map((f) => [feedGroup(f), f])
		);
		this.options.feeds.hold([...feeds.values()]);
	}

	close(): void {
		this.unsubscribeFeeds?.();
		this.unsubscribeFeeds = undefined;
		this.options.feeds.release();
		this.store.close();
		this.sender.close();
		if (this.saveTimer) {
			clearTimeout(this.saveTimer);
			this.saveTimer = undefined;
			writeJsonFile(this.firingsPath, this.firingLog);
		}
	}
}

function newId(prefix: string): string {
	return `${prefix}${Date.now().toString(36)}${Math.floor(Math.random() * 1296)
		.toString(36)
		.padStart(2, '0')}`;
}
