/**
 * Everything a REST handler needs, built once by startService and passed to every handler.
 */
import type { AccountRegistry, Principal } from '../accounts/registry';
import type { QuotaPool } from '../quota/allowances';
import type { QuotaLedger } from '../quota/accountQuotaLedger';
import type { MarketSource } from '../source';
import { HttpError, RATE_LIMIT_MESSAGE } from './respond';
import type { UrlSigner } from './signing';

export interface ServiceContext {
	market: MarketSource;
	accounts: AccountRegistry;
	quota: QuotaLedger;
	signer: UrlSigner;
	dataDir: string;
	/** Origin used in download links; default: the request's Host header. */
	publicOrigin?: string;
	/** Socket idle bound while a history or EOD answer is prepared (ms); default 15 minutes. */
	longIdleTimeoutMs?: number;
}

/** Count a request against the account's pool; throws the upstream's 429 when spent. */
export function spend(ctx: ServiceContext, principal: Principal, pool: QuotaPool): void {
	const result = ctx.quota.consume(principal.account._id, pool, principal.allowances[pool]);
	if (!result.ok) throw new HttpError(429, RATE_LIMIT_MESSAGE);
}
