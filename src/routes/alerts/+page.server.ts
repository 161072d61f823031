/**
 * The rules page: list, add, edit, pause, delete and test-fire alert rules, manage webhooks, and
 * read the last 100 firings, export the rules and webhooks as JSON (./export) and import such a
 * file. Every change is a SvelteKit form action (the request gate of hooks.server.ts checks the
 * session and the CSRF token of each), validated by the rules' parser; a bad rule comes back with
 * its error and the values typed, a bad import with one line per bad entry and nothing changed.
 */
import { fail } from '@sveltejs/kit';
import { ALL_STREAM_TICKERS } from '$lib/contract/tickers';
import { alertService } from '$lib/server/alerts/alertsMount';
import { NOT_FOUND } from '$lib/server/alerts/service';
import { OWNER_ASKER, type Asker } from '$lib/server/alerts/store';
import { appDatabase } from '$lib/server/db/appDb';
import { UserStore } from '$lib/server/users/userStore';
import { dashboardOrigin } from '$lib/server/publicOrigin';
import { describeEntryError, IMPORT_MAX_BYTES } from '$lib/server/alerts/alertsFile';
import type { Actions, PageServerLoad } from './$types';

/** Who asks: the signed-in user (the implicit admin without teams mode). */
const asker = (locals: App.Locals): Asker => locals.user ?? OWNER_ASKER;

/** User names by id, for an admin's list (whose each rule and webhook is). */
async function ownerNames(who: Asker, teams: boolean): Promise<Record<string, string>> {
	if (who.role !== 'admin' || !teams) return {};
	const users = await new UserStore(appDatabase()).list();
	return Object.fromEntries([['', 'before teams mode'], ...users.map((u) => [u.id, u.name])]);
}

export const load = (async ({ locals }) => {
	const s = alertService();
	const state = s.state;
	const who = asker(locals);
	return {
		rules: s.rules(who),
		webhooks: s.webhooks(who),
		owners: await ownerNames(who, locals.teams),
		delivery: s.deliveryStats(),
		firings: await s.firings(who),
		feed: s.feedStatus(),
		errors: (who.role === 'admin' ? state.errors : []).map((e) => ({
			...e,
			text: describeEntryError(e)
		})),
		tickers: [...ALL_STREAM_TICKERS].sort()
	};
}) satisfies PageServerLoad;

const str = (form: FormData, name: string) => {
	const v = form.get(name);
	return typeof v === 'string' ? v.trim() : '';
};

/** The rule fields a form posts, for its kind (the parser fills the defaults). */
function ruleFromForm(form: FormData): Record<string, unknown> {
	const kind = str(form, 'kind');
	const raw: Record<string, unknown> = {
		id: str(form, 'id') || undefined,
		name: str(form, 'name'),
		ticker: str(form, 'ticker'),
		kind,
		paused: str(form, 'paused') === 'true',
		cooldownSeconds: str(form, 'cooldownSeconds')
	};
	if (kind !== 'flow_cross') {
		raw.package = str(form, 'package');
		raw.category = str(form, 'category');
	}
	const fields: Record<string, string[]> = {
		cross: ['level', 'price', 'lookback', 'direction', 'hysteresis'],
		level_move: ['level', 'points'],
		max_change: ['lookback', 'size', 'hysteresis'],
		gex_sign: ['basis', 'hysteresis'],
		flow_cross: ['flow', 'expiry', 'value', 'direction', 'hysteresis']
	};
	for (const f of fields[kind] ?? []) raw[f] = str(form, f);
	if (kind === 'cross' && raw.level !== 'price') delete raw.price;
	if (str(form, 'windowOn') === 'on') {
		raw.window = {
			start: str(form, 'windowStart'),
			end: str(form, 'windowEnd'),
			marketDays: str(form, 'marketDays') === 'on'
		};
	}
	if (str(form, 'allWebhooks') !== 'on') {
		raw.webhooks = form.getAll('webhooks').filter((v): v is string => typeof v === 'string');
	}
	return raw;
}

export const actions = {
	saveRule: async ({ request, url, locals }) => {
		const form = await request.formData();
		const raw = ruleFromForm(form);
		const r = await alertService().saveRule(raw, dashboardOrigin(url), asker(locals));
		if (!r.ok && r.error === NOT_FOUND) return fail(404, { message: `No rule ${raw.id}.` });
		if (!r.ok) {
			return fail(400, {
				ruleError: r.error,
				values: Object.fromEntries(form) as Record<string, string>
			});
		}
		return { message: `Saved: ${r.value.name || r.value.id}` };
	},
	pauseRule: async ({ request, locals }) => {
		const form = await request.formData();
		const id = str(form, 'id');
		const paused = str(form, 'paused') === 'true';
		const ok = await alertService().setRulePaused(id, paused, asker(locals));
		return ok ? { message: 'Saved.' } : fail(404, { message: `No valid rule ${id}.` });
	},
	deleteRule: async ({ request, locals }) => {
		const form = await request.formData();
		const id = str(form, 'id');
		return (await alertService().deleteRule(id, asker(locals)))
			? { message: `Deleted ${id}.` }
			: fail(404, { message: `No rule ${id}.` });
	},
	testRule: async ({ request, locals }) => {
		const form = await request.formData();
		const f = await alertService().testRule(str(form, 'id'), asker(locals));
		return f ? { message: `Test fired: ${f.message}` } : fail(404, { message: 'No such rule.' });
	},
	saveWebhook: async ({ request, url, locals }) => {
		const form = await request.formData();
		const r = await alertService().saveWebhook(
			{
				id: str(form, 'id') || undefined,
				name: str(form, 'name'),
				url: str(form, 'url'),
				format: str(form, 'format'),
				paused: str(form, 'paused') === 'true'
			},
			dashboardOrigin(url),
			asker(locals)
		);
		if (!r.ok && r.error === NOT_FOUND) return fail(404, { message: 'No such webhook.' });
		if (!r.ok) {
			return fail(400, {
				webhookError: r.error,
				values: Object.fromEntries(form) as Record<string, string>
			});
		}
		return { message: `Saved webhook ${r.value.name}.` };
	},
	deleteWebhook: async ({ request, locals }) => {
		const form = await request.formData();
		const id = str(form, 'id');
		return (await alertService().deleteWebhook(id, asker(locals)))
			? { message: `Deleted webhook ${id}.` }
			: fail(404, { message: `No webhook ${id}.` });
	},
	importRules: async ({ request, locals }) => {
		const form = await request.formData();
		const file = form.get('file');
		if (!(file instanceof File) || file.size === 0) {
			return fail(400, { importErrors: ['choose an exported .json file to import'] });
		}
		if (file.size > IMPORT_MAX_BYTES) {
			return fail(413, {
				importErrors: [
					`the file is ${file.size} bytes; an import holds at most ${IMPORT_MAX_BYTES}`
				]
			});
		}
		const r = await alertService().importFile(await file.text(), asker(locals));
		if (!r.ok) return fail(400, { importErrors: r.errors });
		return { message: `Imported ${r.rules} rules and ${r.webhooks} webhooks.` };
	},
	testWebhook: async ({ request, locals }) => {
		const form = await request.formData();
		const id = str(form, 'id');
		const s = alertService();
		const who = asker(locals);
		if (!s.mayChangeWebhook(id, who)) return fail(404, { message: `No webhook ${id}.` });
		// Answered as a success either way, so the page reloads and shows the webhook's status.
		return (await s.testWebhook(id, who))
			? { message: 'The webhook accepted the test message.' }
			: {
					message: `The webhook did not accept the test message: ${s.sender.healthOf(id).lastError}`
				};
	}
} satisfies Actions;
