/**
 * The watchlist without the stream (no Quant tier, slot taken, stream down): each ticker's
 * majors route through /api, one ticker after another, every 10 s per ticker (20 tickers at the
 * 1 s cadence would spend the majors pool twenty times as fast), paused while the tab is hidden.
 */
// The maps here are immutable values in $state.raw, replaced on every change and never mutated
// once published, so SvelteMap's per-entry reactivity would add nothing.
/* eslint-disable svelte/prefer-svelte-reactivity */
import { majorsSchema } from '$lib/contract/schemas';
import { parseWith } from '$lib/contract/validate';
import type { WatchlistRow } from '$lib/stream';

export const WATCHLIST_POLL_MS = 10_000;

export class RestWatchlist {
	rows: ReadonlyMap<string, WatchlistRow> = $state.raw(new Map());
	/** The last error per ticker (refusal text or network error). */
	errors: ReadonlyMap<string, string> = $state.raw(new Map());

	constructor(private readonly tickers: readonly string[]) {}

	start(): () => void {
		let stopped = false;
		let timer: ReturnType<typeof setTimeout> | undefined;
		const controller = new AbortController();
		const round = async () => {
			for (const t of this.tickers) {
				if (stopped) return;
				await this.fetchOne(t, controller.signal);
			}
			if (!stopped) timer = setTimeout(() => void round(), WATCHLIST_POLL_MS);
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
		try {
			const res = await fetch(`/api/${ticker}/classic/gex_full/majors`, {
				signal,
				headers: { accept: 'application/json' }
			});
			const body: unknown = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
			if (!res.ok) {
				error = (body as { error?: string }).error ?? `HTTP ${res.status}`;
			} else {
				const m = parseWith(majorsSchema, body);
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
			}
		} catch (err) {
			if (signal.aborted) return;
			error = (err as Error).message;
		}
		if (error !== undefined || this.errors.has(ticker)) {
			const next = new Map(this.errors);
			if (error === undefined) next.delete(ticker);
			else next.set(ticker, error);
			this.errors = next;
		}
	}
}
