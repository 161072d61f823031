/**
 * The firing record: what the rules page lists, what every open tab receives, and the body of a
 * generic JSON webhook (documented in ./README.md; fields are only ever added).
 */
import { describeRule, type AlertRule } from './rules';
import type { Firing } from './engine';

export interface AlertFiring {
	type: 'gexdeck.alert';
	/** Unique per firing (receivers can drop a duplicate delivery by it). */
	id: string;
	ruleId: string;
	ruleName: string;
	/** The rule in words, with the views' category names (`SPX spot crosses zero gamma (Full)`). */
	description: string;
	ticker: string;
	kind: AlertRule['kind'];
	/** The service's ids of a chain rule's data (`classic`, `gex_full`); absent for a flow rule. */
	package?: 'classic' | 'state';
	category?: string;
	/** Unix seconds of the data that fired it. */
	at: number;
	/** The same instant, ISO 8601 UTC. */
	time: string;
	/** Server wall clock (unix ms) when it fired. */
	firedAt: number;
	direction?: 'up' | 'down';
	message: string;
	values: Record<string, number>;
	/** The view at that moment: absolute when the dashboard's public URL is known, else a path. */
	link: string;
	/** Sent by the page's Test button, not by data. */
	test: boolean;
}

/** The view a rule watches, at the firing's moment (`at`, unix seconds). */
export function viewPath(rule: AlertRule, at: number): string {
	if (rule.kind === 'flow_cross') return `/${rule.ticker}/orderflow?at=${at}`;
	return `/${rule.ticker}/${rule.package}/${rule.category}?at=${at}`;
}

/** The app path of a firing's link (absolute or not), for an in-app anchor. */
export function firingPath(link: string): string {
	try {
		const u = new URL(link, 'http://dashboard.invalid');
		return u.pathname + u.search;
	} catch {
		return '/alerts';
	}
}

let sequence = 0;

export function toAlertFiring(
	rule: AlertRule,
	f: Firing,
	options: { publicUrl?: string | null; test?: boolean; now?: number } = {}
): AlertFiring {
	const now = options.now ?? Date.now();
	const path = viewPath(rule, f.at);
	const out: AlertFiring = {
		type: 'gexdeck.alert',
		id: `${now.toString(36)}-${(sequence++).toString(36)}-${rule.id}`,
		ruleId: rule.id,
		ruleName: rule.name,
		description: describeRule(rule),
		ticker: rule.ticker,
		kind: rule.kind,
		at: f.at,
		time: new Date(f.at * 1000).toISOString(),
		firedAt: now,
		message: f.message,
		values: f.values,
		link: options.publicUrl ? options.publicUrl.replace(/\/+$/, '') + path : path,
		test: options.test ?? false
	};
	if (rule.kind !== 'flow_cross') {
		out.package = rule.package;
		out.category = rule.category;
	}
	if (f.direction) out.direction = f.direction;
	return out;
}
