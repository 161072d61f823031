/**
 * The bounds on webhooks the alerts service enforces when rules and webhooks are saved: at most
 * MAX_WEBHOOKS_PER_RULE per rule (a rule on "every webhook" included), MAX_WEBHOOKS in all, and a
 * URL whose host resolves to an address it may reach. Also the firings a rule's and a webhook's
 * Test send.
 */
import type { ChainObservation } from '../../alerts/engine';
import { toAlertFiring, type AlertFiring } from '../../alerts/firing';
import {
	describeRule,
	MAX_WEBHOOKS,
	MAX_WEBHOOKS_PER_RULE,
	type AlertRule,
	type Webhook
} from '../../alerts/rules';
import type { AlertsState } from './store';
import type { WebhookSender } from './webhooks';

/** Why `rule` may not be saved as to its webhooks, or undefined. */
export function ruleWebhookRefusal(state: AlertsState, rule: AlertRule): string | undefined {
	const unknown = (rule.webhooks ?? []).filter((id) => !state.webhooks.some((w) => w.id === id));
	if (unknown.length > 0) return `webhooks: no webhook with id ${unknown.join(', ')}`;
	const active = state.webhooks.filter((w) => !w.paused).length;
	if (rule.webhooks === null && active > MAX_WEBHOOKS_PER_RULE) {
		return `a rule posts to at most ${MAX_WEBHOOKS_PER_RULE} webhooks and there are ${active}: pick up to ${MAX_WEBHOOKS_PER_RULE} instead of every webhook`;
	}
	return undefined;
}

/** Why `hook` may not be saved (counts, then its address, resolved now), or undefined. */
export async function webhookRefusal(
	state: AlertsState,
	hook: Webhook,
	sender: WebhookSender
): Promise<string | undefined> {
	const others = [...state.hookOwner.keys()].filter((id) => id !== hook.id);
	if (others.length >= MAX_WEBHOOKS) return `at most ${MAX_WEBHOOKS} webhooks: delete one first`;
	const active = state.webhooks.filter((w) => w.id !== hook.id && !w.paused).length;
	if (!hook.paused && active >= MAX_WEBHOOKS_PER_RULE && state.rules.some((r) => !r.webhooks)) {
		return `a rule posts to every webhook, and a rule posts to at most ${MAX_WEBHOOKS_PER_RULE}: pick that rule's webhooks first`;
	}
	const refused = await sender.check(hook.url);
	if (refused === 'blocked address') {
		return 'url resolves to a loopback, private, link-local or reserved address; a receiver on your own network needs GEXDECK_WEBHOOK_ALLOW (README, Security)';
	}
	return refused ? `url cannot be reached: ${refused}` : undefined;
}

/** The firing a webhook's Test button sends (marked as a test). */
export function webhookTestFiring(
	hook: Webhook,
	publicUrl: string | null | undefined
): AlertFiring {
	const probe: AlertRule = {
		id: 'webhook-test',
		name: 'Webhook test',
		ticker: 'SPX',
		kind: 'gex_sign',
		package: 'classic',
		category: 'gex_full',
		basis: 'vol',
		hysteresis: 0,
		paused: false,
		cooldownSeconds: 0,
		window: null,
		webhooks: [hook.id]
	};
	return toAlertFiring(
		probe,
		{
			ruleId: probe.id,
			ticker: 'SPX',
			kind: 'gex_sign',
			at: Math.floor(Date.now() / 1000),
			message: `Test message to ${hook.name}`,
			values: {}
		},
		{ publicUrl, test: true }
	);
}

/** The firing a rule's Test sends: the latest values its chain had (`chain`), marked as a test. */
export function ruleTestFiring(
	rule: AlertRule,
	chain: ChainObservation | undefined,
	publicUrl: string | null | undefined
): AlertFiring {
	const at = chain?.t ?? Math.floor(Date.now() / 1000);
	const values: Record<string, number> = {};
	if (chain) {
		values.spot = chain.spot;
		if ('level' in rule && rule.level !== 'price' && rule.level !== 'max_change') {
			values.level = chain[rule.level];
		}
	}
	return toAlertFiring(
		rule,
		{
			ruleId: rule.id,
			ticker: rule.ticker,
			kind: rule.kind,
			at,
			message: `Test: ${describeRule(rule)}`,
			values
		},
		{ publicUrl, test: true }
	);
}
