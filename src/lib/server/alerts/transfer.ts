/**
 * The export and import of /alerts for one user: the export holds the rules and webhooks the user
 * sees (an admin: everyone's); the import adds the file's entries as the user's, replacing those
 * with the same id that the user may change. An id held by someone the user may not see is not
 * touched (nor revealed): the imported entry gets a new id, and the rules that named a renamed
 * webhook name its new id. All or nothing: the checks run before anything is written.
 */
import { MAX_WEBHOOKS, type AlertRule, type Webhook } from '../../alerts/rules';
import { parseImport, type AlertsFile } from './alertsFile';
import { mayTouch, ownedBy, visibleTo, type AlertsState, type Asker } from './store';

export type ImportPlan =
	{ ok: true; rules: AlertRule[]; webhooks: Webhook[] } | { ok: false; errors: string[] };

/** A fresh entry id (`r…` for a rule, `w…` for a webhook). */
export function newId(prefix: string): string {
	return `${prefix}${Date.now().toString(36)}${Math.floor(Math.random() * 1296)
		.toString(36)
		.padStart(2, '0')}`;
}

export function exportFor(state: AlertsState, who: Asker): AlertsFile {
	const mine = visibleTo(state, who);
	return { version: 1, publicUrl: state.publicUrl, rules: mine.rules, webhooks: mine.webhooks };
}

/** What an uploaded export would write for `who`, or why it is refused. */
export function planImport(state: AlertsState, who: Asker, text: string): ImportPlan {
	const parsed = parseImport(text);
	if (!parsed.ok) return parsed;
	const taken = (owners: ReadonlyMap<string, string>, id: string) =>
		owners.has(id) && !mayTouch(who, owners.get(id));
	const hookIds = new Map<string, string>();
	const webhooks = parsed.value.webhooks.map((w) => {
		if (!taken(state.hookOwner, w.id)) return w;
		const id = newId('w');
		hookIds.set(w.id, id);
		return { ...w, id };
	});
	const rules = parsed.value.rules.map((r) => ({
		...r,
		id: taken(state.ruleOwner, r.id) ? newId('r') : r.id,
		webhooks: r.webhooks && r.webhooks.map((h) => hookIds.get(h) ?? h)
	}));
	const after = new Set([
		...ownedBy(state, who.id).webhooks.map((w) => w.id),
		...webhooks.filter((w) => !state.hookOwner.has(w.id)).map((w) => w.id)
	]);
	if (after.size > MAX_WEBHOOKS) {
		return {
			ok: false,
			errors: [`at most ${MAX_WEBHOOKS} webhooks; the import would make ${after.size}`]
		};
	}
	return { ok: true, rules, webhooks };
}
