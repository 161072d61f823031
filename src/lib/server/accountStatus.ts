/**
 * Everything the Account page shows, gathered server-side: the upstream in use, both keys' whoami
 * (masked ids only; secrets never leave the server), what each feature needs and whether this
 * account has it, the quota ledger and the 429 state of every pool.
 */
import { canAccess, type KeyState } from '$lib/contract/access';
import { classifyKey, maskKey } from '$lib/contract/keys';
import { getRoute, type RouteId } from '$lib/contract/routes';
import { whoamiSchema, type Whoami } from '$lib/contract/schemas';
import { safeParse } from '$lib/contract/validate';
import type { PoolBackoffState } from './backoff';
import type { PoolSpend } from './quotaLedger';
import { requirementOf } from './proxy';
import { quotaLedger, upstreamProxy } from './services';
import { upstreamTarget, type KeySource, type UpstreamTarget } from './upstream';

export interface KeyStatus {
	configured: boolean;
	source: KeySource;
	/** The masked id whoami reports (or a local mask when whoami failed). */
	maskedId: string | null;
	whoami: Whoami | null;
	error: string | null;
}

export interface FeatureStatus {
	name: string;
	route: RouteId;
	available: boolean;
	/** Why it is locked, in the words of the access rule. */
	reason: string | null;
	requires: string;
}

export interface AccountStatus {
	upstream: { kind: UpstreamTarget['kind']; baseUrl: string } | null;
	upstreamError: string | null;
	custom: KeyStatus;
	research: KeyStatus;
	features: FeatureStatus[];
	ledger: Record<string, PoolSpend>;
	/** Why the ledger file could not be saved (full disk, read-only folder), or null. */
	ledgerWriteError: string | null;
	pools: Record<string, PoolBackoffState>;
	demoAccounts: UpstreamTarget['demoAccounts'];
	demoAccountId: string | null;
}

const FEATURES: { name: string; route: RouteId }[] = [
	{ name: 'Classic view (GEX chain)', route: 'classicChain' },
	{ name: 'Levels (majors / max change)', route: 'classicMajors' },
	{ name: 'State profiles', route: 'stateSnapshot' },
	{ name: 'Orderflow', route: 'orderflow' },
	{ name: 'Futures conversion', route: 'futuresConversion' },
	{ name: 'History downloads (Quant)', route: 'history' },
	{ name: 'Streaming (Quant WebSocket)', route: 'negotiatePost' },
	{ name: 'Research charts', route: 'research' }
];

async function keyStatus(
	target: UpstreamTarget,
	key: string | undefined,
	source: KeySource
): Promise<KeyStatus> {
	if (!key) return { configured: false, source, maskedId: null, whoami: null, error: null };
	try {
		const res = await upstreamProxy().account(target, key);
		if (typeof res === 'number') {
			return {
				configured: true,
				source,
				maskedId: maskKey(key),
				whoami: null,
				error: `whoami answered ${res}`
			};
		}
		// A partial or reshaped whoami must not break the page: it is shown as an error instead.
		const checked = safeParse(whoamiSchema, res);
		if (!checked.ok) {
			return {
				configured: true,
				source,
				maskedId: maskKey(key),
				whoami: null,
				error: `whoami answered an unexpected shape (${checked.path}: ${checked.message})`
			};
		}
		const whoami: Whoami = checked.value;
		return {
			configured: true,
			source,
			maskedId: whoami.api_key?.id ?? maskKey(key),
			whoami,
			error: null
		};
	} catch (err) {
		return {
			configured: true,
			source,
			maskedId: maskKey(key),
			whoami: null,
			error: (err as Error).message
		};
	}
}

function keyState(key: string | undefined): KeyState {
	if (!key) return 'missing';
	return classifyKey(key)?.kind ?? 'malformed';
}

export async function accountStatus(): Promise<AccountStatus> {
	let target: UpstreamTarget;
	try {
		target = await upstreamTarget();
	} catch (err) {
		const none: KeyStatus = {
			configured: false,
			source: 'none',
			maskedId: null,
			whoami: null,
			error: null
		};
		return {
			upstream: null,
			upstreamError: (err as Error).message,
			custom: none,
			research: none,
			features: [],
			ledger: {},
			ledgerWriteError: quotaLedger().lastWriteError ?? null,
			pools: {},
			demoAccounts: [],
			demoAccountId: null
		};
	}
	const [custom, research] = await Promise.all([
		keyStatus(target, target.customKey, target.customKeySource),
		keyStatus(target, target.researchKey, target.researchKeySource)
	]);
	const features = FEATURES.map(({ name, route }) => {
		const spec = getRoute(route);
		const isResearch = spec.access.kind === 'research';
		const status = isResearch ? research : custom;
		const key = isResearch ? target.researchKey : target.customKey;
		const decision = status.whoami
			? canAccess(spec, keyState(key), status.whoami)
			: {
					ok: false as const,
					error: key
						? `The ${isResearch ? 'research' : 'API'} key could not be checked (${status.error}).`
						: `No ${isResearch ? 'Research' : 'API'} key configured.`
				};
		return {
			name,
			route,
			available: decision.ok,
			reason: decision.ok ? null : decision.error,
			requires: requirementOf(spec.access)
		};
	});
	const accountId = custom.whoami?._id ?? 'unknown';
	const pools = Object.fromEntries(
		Object.entries(upstreamProxy().backoff.snapshot())
			.filter(([k]) => k.startsWith(`${accountId}|`))
			.map(([k, v]) => [k.slice(accountId.length + 1), v])
	);
	return {
		upstream: { kind: target.kind, baseUrl: target.baseUrl },
		upstreamError: null,
		custom,
		research,
		features,
		ledger: quotaLedger().usage(accountId),
		ledgerWriteError: quotaLedger().lastWriteError ?? null,
		pools,
		demoAccounts: target.demoAccounts,
		demoAccountId: target.demoAccountId ?? null
	};
}
