import { fail } from '@sveltejs/kit';
import { classifyKey } from '$lib/contract/keys';
import { accountStatus } from '$lib/server/accountStatus';
import { httpGet } from '$lib/server/httpClient';
import { log } from '$lib/server/log';
import { config } from '$lib/server/config';
import { updateSettings } from '$lib/server/settings';
import { upstreamTarget } from '$lib/server/upstream';
import type { Actions, PageServerLoad } from './$types';
import { clusterStatus } from './cluster.server';
import { usageShares } from './usageShares.server';
import { researchPoolStatus } from './researchPool.server';
import { recordingStatus, saveRecording } from './recording.server';
import { createToken, revokeToken, tokenList } from './tokens.server';
import { appDatabase } from '$lib/server/db/appDb';
import { auditRequest } from '$lib/server/users/audit';

export const load = (async (event) => {
	const status = await accountStatus();
	const accountId = status.custom.whoami?._id ?? null;
	const cluster = await clusterStatus(accountId);
	// In cluster mode the account's totals are the shared ledger's (every replica's calls).
	const spend = cluster?.pools.length
		? Object.fromEntries(cluster.pools.map((p) => [p.pool, p.spend]))
		: status.ledger;
	return {
		status,
		researchPool: researchPoolStatus(status),
		recording: await recordingStatus(event.locals),
		tokens: await tokenList(event),
		cluster,
		shares: await usageShares(event.locals.user, accountId ?? 'unknown', spend)
	};
}) satisfies PageServerLoad;

/** Ask the upstream whether it knows `key` before storing it (a typo is caught now, not later). */
async function verifyKey(key: string): Promise<string | undefined> {
	const target = await upstreamTarget();
	const res = await httpGet(
		new URL(`${target.baseUrl}/whoami`),
		{
			authorization: `Bearer ${key}`,
			'user-agent': config().userAgent,
			accept: 'application/json'
		},
		5_000
	).catch((err: Error) => ({ status: 0, error: err.message }));
	if (res.status === 200) return undefined;
	return res.status === 0
		? `Upstream unreachable: ${(res as { error: string }).error}`
		: `The upstream refused this key (whoami answered ${res.status}).`;
}

/**
 * Store `patch`: the proxy, the relay and the feed holder react to the change themselves
 * (settings.ts onSettingsChange). When the database refuses the write the old settings are kept and the
 * page says so (a 507 with the database's name and the reason) instead of failing with a 500.
 */
async function save(patch: Parameters<typeof updateSettings>[0]) {
	try {
		await updateSettings(patch);
		return undefined;
	} catch (err) {
		log.error((err as Error).message);
		return fail(507, { message: `Not saved: ${(err as Error).message}` });
	}
}

export const actions = {
	/** Store keys entered on this page (server-side only, 0600). Keys are never echoed back. */
	saveKeys: async (event) => {
		const { request } = event;
		const form = await request.formData();
		const custom = String(form.get('customKey') ?? '').trim();
		const research = String(form.get('researchKey') ?? '').trim();
		if (!custom && !research) return fail(400, { message: 'Enter a key to save.' });
		const patch: { customKey?: string; researchKey?: string } = {};
		if (custom) {
			const kind = classifyKey(custom)?.kind;
			if (kind !== 'custom' && kind !== 'platform') {
				return fail(400, {
					message: 'The API key must look like gexbot_custom_ followed by 43 characters.'
				});
			}
			const refused = await verifyKey(custom);
			if (refused) return fail(400, { message: refused });
			patch.customKey = custom;
		}
		if (research) {
			if (classifyKey(research)?.kind !== 'research') {
				return fail(400, {
					message: 'The Research key must look like research_ followed by 43 characters.'
				});
			}
			const refused = await verifyKey(research);
			if (refused) return fail(400, { message: refused });
			patch.researchKey = research;
		}
		const notSaved = await save(patch);
		if (notSaved) return notSaved;
		const which = Object.keys(patch).join(', ');
		await auditRequest(appDatabase(), event, 'key changed', `saved ${which}`);
		return { message: 'Saved. The browser only ever sees the masked key id.' };
	},

	clearKeys: async (event) => {
		const notSaved = await save({ customKey: undefined, researchKey: undefined });
		if (notSaved) return notSaved;
		await auditRequest(appDatabase(), event, 'key changed', 'removed the stored keys');
		return { message: 'Stored keys removed.' };
	},

	/** Recording: retention (an admin's) and the asker's tickers recorded with no tab open. */
	saveRecording: async ({ request, locals }) => saveRecording(await request.formData(), locals),

	/** Integration tokens for the levels feed (tokens.server.ts). */
	createToken: async (event) => createToken(await event.request.formData(), event),
	revokeToken: async (event) => revokeToken(await event.request.formData(), event),

	/** Embedded service only: view the dashboard as another demo account. */
	switchAccount: async ({ request }) => {
		const form = await request.formData();
		const id = String(form.get('account') ?? '');
		const target = await upstreamTarget();
		if (target.kind !== 'embedded' || !target.demoAccounts.some((a) => a._id === id)) {
			return fail(400, { message: 'Unknown demo account.' });
		}
		const notSaved = await save({
			demoAccountId: id,
			customKey: undefined,
			researchKey: undefined
		});
		if (notSaved) return notSaved;
		return { message: `Now using demo account ${id}.` };
	}
} satisfies Actions;
