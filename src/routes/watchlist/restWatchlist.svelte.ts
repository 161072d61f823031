/**
 * The watchlist without the stream (no Quant tier, slot taken, stream down): each ticker's
 * majors route through /api, one ticker after another, every 10 s per ticker (20 tickers at the
 * 1 s cadence would spend the majors pool twenty times as fast), paused while the tab is hidden.
 * Through fetchRoute like every /api read: a refusal reads with what it requires, and a 429's
 * Retry-After holds the next round back.
 */
// The maps here are immutable values in $state.raw, replaced on every change and never mutated
// once published, so SvelteMap's per-entry reactivity would add nothing.
/* eslint-disable svelte/prefer-svelte-reactivity */
import { describeRouteError, fetchRoute } from '$lib/cache/routeFetch';
import { majorsSchema } from '$lib/contract/schemas';
import { parseWith } from '$lib/contract/validate';
import type { WatchlistRow } from '$lib/stream';

export const WATCHLIST_POLL_MS = 10_000;

export class RestWatchlist {
	rows: ReadonlyMap<string, WatchlistRow> = $state.raw(new Map());
	/** The last error per ticker (refusal text or network error). */
	errors: ReadonlyMap<string, string> = $state.raw(new Map());
	/** The longest Retry-After (ms) of the round that ran, to wait before the next one. */
	private retryAfterMs = 0;

	constructor(private readonly tickers: readonly string[]) {}

	start(): () => void {
		let stopped = false;
		let timer: ReturnType<typeof setTimeout> | undefined;
		const controller = new AbortController();
		const round = async () => {
			this.retryAfterMs = 0;
			for (const t of this.tickers) {
				if (stopped) return;
				await this.fetchOne(t, controller.signal);
				// Rate limited: the rest of the round would be refused too.
				if (this.retryAfterMs > 0) break;
			}
			if (!stopped)
				timer = setTimeout(() => void round(), Math.max(WATCHLIST_POLL_MS, this.retryAfterMs));
		};
		const onVisibility = () => {
			clearTimeout(timer);
			if (!document.hidden) void round();
		};
		document.addEventListener('visibilitychange', onVisibility);
		void round();
		return () => {
			stopped = true;
			clearTimeout(timer);
			controller.abort();
			document.removeEventListener('visibilitychange', onVisibility);
		};
	}

	private async fetchOne(ticker: string, signal: AbortSignal): Promise<void> {
		let error: string | undefined;
		const answer = await fetchRoute(`${ticker}/classic/gex_full/majors`, signal);
		if (!answer) return;
		if (!answer.ok) {
			error = describeRouteError(answer.error);
			this.retryAfterMs = Math.max(this.retryAfterMs, answer.retryAfterMs ?? 0);
		} else {
			try {
				const m = parseWith(majorsSchema, answer.body);
				const next = new Map(this.rows);
				next.set(ticker, {
					ticker,
					timestamp: m.timestamp,
					spot: m.spot,
					spotTimestamp: m.timestamp,
					zeroGamma: m.zero_gamma,
					majorPosVol: m.mpos_vol,
					majorNegVol: m.mneg_vol,
					majorPosOi: m.mpos_oi,
					majorNegOi: m.mneg_oi
				});
				this.rows = next;
			} catch (err) {
				error = (err as Error).message;
			}
		}
		if (error !== undefined || this.errors.has(ticker)) {
			const next = new Map(this.errors);
			if (error === undefined) next.delete(ticker);
			else next.set(ticker, error);
			this.errors = next;
		}
	}
}
