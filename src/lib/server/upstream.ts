/**
 * Which upstream the dashboard talks to and with which keys.
 *
 * Keys come from, in order: the Account page (settings file), the environment, and with the
 * embedded default the chosen demo account (the best one unless the Account page picked another).
 */
import { join } from 'node:path';
import { config } from './config';
import {
	bestDemoAccount,
	customKeyOf,
	researchKeyOf,
	startEmbeddedService,
	type DemoAccount,
	type EmbeddedService
} from './embedded';
import { ensurePrivateDir } from './jsonFile';
import { readSettings, type StoredSettings } from './settings';

export type KeySource = 'settings' | 'environment' | 'demo account' | 'none';

export interface UpstreamTarget {
	/** Base URL with the version prefix, e.g. `https://api.gex.bot/v2`. */
	baseUrl: string;
	/** Origin + path without the version prefix, for the root routes (`/tickers/quant`, ...). */
	rootUrl: string;
	kind: 'embedded' | 'configured';
	customKey: string | undefined;
	researchKey: string | undefined;
	customKeySource: KeySource;
	researchKeySource: KeySource;
	/** Embedded only: the demo accounts offered on the Account page (ids and entitlements only). */
	demoAccounts: Pick<DemoAccount, '_id' | 'max_level' | 'addons'>[];
	demoAccountId: string | undefined;
}

let embedded: Promise<EmbeddedService> | undefined;

function startEmbedded(): Promise<EmbeddedService> {
	// The service creates its folder inside ours: ours must exist first, owner-only (0700).
	ensurePrivateDir(config().dataDir);
	return startEmbeddedService(join(config().dataDir, 'service'));
}

function embeddedService(): Promise<EmbeddedService> {
	if (embedded) {
		// A child that died is started again on the next request rather than failing forever.
		const current = embedded;
		embedded = current.then(
			(svc) => (svc.alive() ? svc : startEmbedded()),
			() => startEmbedded()
		);
	} else {
		embedded = startEmbedded();
	}
	return embedded;
}

/** Strip the trailing version segment: `https://api.gex.bot/v2` -> `https://api.gex.bot`. */
export function rootOf(baseUrl: string): string {
	return baseUrl.replace(/\/v\d+$/, '');
}

/** Start the embedded service now when it will be needed (called at server start). */
export async function warmUp(): Promise<void> {
	if (!config().upstream) await embeddedService();
}

let current:
	{ settings: StoredSettings; target: UpstreamTarget; service?: EmbeddedService } | undefined;

/**
 * The target for this request. Cached while the settings object and the embedded child are
 * unchanged, since the proxy asks on every request.
 */
export async function upstreamTarget(): Promise<UpstreamTarget> {
	const settings = readSettings();
	if (current && current.settings === settings && (!current.service || current.service.alive())) {
		return current.target;
	}
	const resolved = await resolveTarget(settings);
	current = { settings, ...resolved };
	return resolved.target;
}

async function resolveTarget(
	settings: StoredSettings
): Promise<{ target: UpstreamTarget; service?: EmbeddedService }> {
	const cfg = config();
	const fromSettingsOrEnv = (stored: string | undefined, envKey: string | undefined) =>
		stored
			? { key: stored, source: 'settings' as const }
			: envKey
				? { key: envKey, source: 'environment' as const }
				: undefined;
	const custom = fromSettingsOrEnv(settings.customKey, cfg.apiKey);
	const research = fromSettingsOrEnv(settings.researchKey, cfg.researchKey);

	if (cfg.upstream) {
		const target: UpstreamTarget = {
			baseUrl: cfg.upstream,
			rootUrl: rootOf(cfg.upstream),
			kind: 'configured',
			customKey: custom?.key,
			researchKey: research?.key,
			customKeySource: custom?.source ?? 'none',
			researchKeySource: research?.source ?? 'none',
			demoAccounts: [],
			demoAccountId: undefined
		};
		return { target };
	}

	const svc = await embeddedService();
	const chosen =
		svc.accounts.find((a) => a._id === settings.demoAccountId) ?? bestDemoAccount(svc.accounts);
	const demoCustom = chosen && customKeyOf(chosen);
	const demoResearch = chosen && researchKeyOf(chosen);
	const target: UpstreamTarget = {
		baseUrl: svc.baseUrl,
		rootUrl: rootOf(svc.baseUrl),
		kind: 'embedded',
		customKey: custom?.key ?? demoCustom,
		researchKey: research?.key ?? demoResearch,
		customKeySource: custom ? custom.source : demoCustom ? 'demo account' : 'none',
		researchKeySource: research ? research.source : demoResearch ? 'demo account' : 'none',
		demoAccounts: svc.accounts.map(({ _id, max_level, addons }) => ({ _id, max_level, addons })),
		demoAccountId: chosen?._id
	};
	return { target, service: svc };
}
