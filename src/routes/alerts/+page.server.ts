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
import { dashboardOrigin } from '$lib/server/publicOrigin';
import { describeEntryError, IMPORT_MAX_BYTES } from '$lib/server/alerts/alertsFile';
import type { Actions, PageServerLoad } from './$types';

export const load = (async () => {
	const s = alertService();
	const state = s.state;
	return {
		rules: s.rules(),
		webhooks: s.webhooks(),
		delivery: s.deliveryStats(),
		firings: await s.firings(),
		feed: s.feedStatus(),
		errors: state.errors.map((e) => ({ ...e, text: describeEntryError(e) })),
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
	saveRule: async ({ request, url }) => {
		const form = await request.formData();
		const raw = ruleFromForm(form);
		const r = await alertService().saveRule(raw, dashboardOrigin(url));
		if (!r.ok) {
			return fail(400, {
				ruleError: r.error,
				values: Object.fromEntries(form) as Record<string, string>
			});
		}
		return { message: `Saved: ${r.value.name || r.value.id}` };
	},
	pauseRule: async ({ request }) => {
		const form = await request.formData();
		const id = str(form, 'id');
		const ok = await alertService().setRulePaused(id, str(form, 'paused') === 'true');
		return ok ? { message: 'Saved.' } : fail(404, { message: `No valid rule ${id}.` });
	},
	deleteRule: async ({ request }) => {
		const form = await request.formData();
		const id = str(form, 'id');
		return (await alertService().deleteRule(id))
			? { message: `Deleted ${id}.` }
			: fail(404, { message: `No rule ${id}.` });
	},
	testRule: async ({ request }) => {
		const form = await request.formData();
		const f = await alertService().testRule(str(form, 'id'));
		return f ? { message: `Test fired: ${f.message}` } : fail(404, { message: 'No such rule.' });
	},
	saveWebhook: async ({ request, url }) => {
		const form = await request.formData();
		const r = await alertService().saveWebhook(
			{
				id: str(form, 'id') || undefined,
				name: str(form, 'name'),
				url: str(form, 'url'),
				format: str(form, 'format'),
				paused: str(form, 'paused') === 'true'
			},
			dashboardOrigin(url)
		);
		if (!r.ok) {
			return fail(400, {
				webhookError: r.error,
				values: Object.fromEntries(form) as Record<string, string>
			});
		}
		return { message: `Saved webhook ${r.value.name}.` };
	},
	deleteWebhook: async ({ request }) => {
		const form = await request.formData();
		const id = str(form, 'id');
		return (await alertService().deleteWebhook(id))
			? { message: `Deleted webhook ${id}.` }
			: fail(404, { message: `No webhook ${id}.` });
	},
	importRules: async ({ request }) => {
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
		const r = await alertService().importFile(await file.text());
		if (!r.ok) return fail(400, { importErrors: r.errors });
		return { message: `Imported ${r.rules} rules and ${r.webhooks} webhooks.` };
	},
	testWebhook: async ({ request }) => {
		const form = await request.formData();
		const id = str(form, 'id');
		const s = alertService();
		if (!s.state.webhooks.some((w) => w.id === id))
			return fail(404, { message: `No webhook ${id}.` });
		// Answered as a success either way, so the page reloads and shows the webhook's status.
		return (await s.testWebhook(id))
			? { message: 'The webhook accepted the test message.' }
			: {
					message: `The webhook did not accept the test message: ${s.sender.healthOf(id).lastError}`
				};
	}
} satisfies Actions;
