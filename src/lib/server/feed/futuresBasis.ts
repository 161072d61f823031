/**
 * Futures conversions for `?future=` (index level x multiplier + additive), fetched through the
 * proxy (api_futures_conversion pool) at most every REFRESH_MS per pair: the upstream refreshes
 * them every 15 minutes, so one call per 5 minutes costs almost nothing whatever the number of
 * feed clients. A basis older than MAX_BASIS_AGE_MS (refreshes failing) is refused, never used.
 */
import { futuresConversionSchema, type FuturesConversionBody } from '../../contract/schemas';
import { safeParse } from '../../contract/validate';
import type { ProxyResult } from '../proxy';

export const REFRESH_MS = 5 * 60_000;
export const MAX_BASIS_AGE_MS = 30 * 60_000;

export type BasisAnswer =
	| { ok: true; conversion: FuturesConversionBody; fetchedAt: number }
	| { ok: false; status: number; reason: string };

interface Cached {
	conversion?: FuturesConversionBody;
	fetchedAt: number;
	attemptAt: number;
	pending?: Promise<void>;
	lastError?: string;
}

export class FuturesBasis {
	private readonly cache = new Map<string, Cached>();

	constructor(
		private readonly fetch: (
			path: string,
			query: URLSearchParams,
			caller?: string
		) => Promise<ProxyResult>,
		private readonly now: () => number = Date.now
	) {}

	private async refresh(ticker: string, future: string, c: Cached, caller?: string): Promise<void> {
		c.attemptAt = this.now();
		try {
			const r = await this.fetch(
				'futures/conversion',
				new URLSearchParams({ ticker, future }),
				caller
			);
			const text = typeof r.body === 'string' ? r.body : new TextDecoder().decode(r.body);
			if (r.status !== 200) {
				c.lastError = `upstream ${r.status}: ${text.slice(0, 200)}`;
				return;
			}
			const parsed = safeParse(futuresConversionSchema, JSON.parse(text));
			if (!parsed.ok) {
				c.lastError = `unexpected conversion body (${parsed.path}: ${parsed.message})`;
				return;
			}
			c.conversion = parsed.value;
			c.fetchedAt = this.now();
			c.lastError = undefined;
		} catch (err) {
			c.lastError = (err as Error).message;
		}
	}

	/** `caller`: whose request a refresh made now is counted for (usage/callShares.ts). */
	async get(ticker: string, future: string, caller?: string): Promise<BasisAnswer> {
		const key = `${ticker}|${future}`;
		let c = this.cache.get(key);
		if (!c) {
			c = { fetchedAt: 0, attemptAt: 0 };
			this.cache.set(key, c);
		}
		const due = this.now() - c.attemptAt >= REFRESH_MS;
		if ((due || !c.conversion) && !c.pending) {
			const entry = c;
			entry.pending = this.refresh(ticker, future, entry, caller).finally(
				() => (entry.pending = undefined)
			);
		}
		// The first conversion is awaited; later refreshes run behind the cached value.
		if (!c.conversion && c.pending) await c.pending;
		if (!c.conversion) {
			return {
				ok: false,
				status: 503,
				reason: `no futures conversion for ${ticker}/${future} yet: ${c.lastError ?? 'pending'}`
			};
		}
		const age = this.now() - c.fetchedAt;
		if (age > MAX_BASIS_AGE_MS) {
			return {
				ok: false,
				status: 503,
				reason: `the ${ticker}/${future} basis is ${Math.round(age / 60_000)} minutes old (limit ${MAX_BASIS_AGE_MS / 60_000}); last refresh: ${c.lastError ?? 'failed'}`
			};
		}
		return { ok: true, conversion: c.conversion, fetchedAt: c.fetchedAt };
	}
}
