/**
 * The research key's quota pool for the Account page. Research has its own pool
 * (api_research_command) counted per account, so it is read under the account the research key
 * belongs to (its whoami), which may differ from the API key's. The limits are the published
 * allowance of a Research API key; the upstream does not report remaining quota, so "used" is
 * what this dashboard has spent (the quota ledger), not what other clients of the account did.
 */
import type { PoolBackoffState } from '$lib/server/backoff';
import type { AccountStatus } from '$lib/server/accountStatus';
import type { PoolSpend } from '$lib/server/quotaLedger';
import { quotaLedger, upstreamProxy } from '$lib/server/services';

export const RESEARCH_POOL = 'api_research_command';

/** Published allowance of a Research API key (per endpoint; ET daily and monthly windows). */
export const RESEARCH_KEY_ALLOWANCE = { daily: 1_000_000, monthly: 30_000_000 } as const;

export interface ResearchPoolStatus {
	configured: boolean;
	maskedId: string | null;
	/** The account the research key belongs to (null when whoami failed or no key). */
	accountId: string | null;
	/** Whether the research key's account has research access, with the reason if not. */
	available: boolean;
	reason: string | null;
	spend: PoolSpend | null;
	backoff: PoolBackoffState | null;
	limits: typeof RESEARCH_KEY_ALLOWANCE;
}

export function researchPoolStatus(status: AccountStatus): ResearchPoolStatus {
	const research = status.research;
	const accountId = research.whoami?._id ?? null;
	const feature = status.features.find((f) => f.route === 'research');
	return {
		configured: research.configured,
		maskedId: research.maskedId,
		accountId,
		available: feature?.available ?? false,
		reason: feature?.reason ?? null,
		spend: accountId ? (quotaLedger().usage(accountId)[RESEARCH_POOL] ?? null) : null,
		backoff: accountId
			? (upstreamProxy().backoff.snapshot()[`${accountId}|${RESEARCH_POOL}`] ?? null)
			: null,
		limits: RESEARCH_KEY_ALLOWANCE
	};
}
