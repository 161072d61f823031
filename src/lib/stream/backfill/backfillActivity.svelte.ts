/**
 * The backfills in flight on this page and how far each is, as reactive state: the backfill
 * client (./backfillClient.ts) reports into it, and BackfillProgress.svelte shows it beside a
 * view's status, so a long day loading reads as progress rather than a frozen chart.
 */
import { untrack } from 'svelte';
import type { BackfillProgress } from './backfillMessages';

export interface BackfillLoad {
	id: number;
	ticker: string;
	stream: string;
	progress: BackfillProgress | null;
}

/** 0..1 of a load (records when the server said how many, else bytes), or null when unknown. */
export function loadedFraction(p: BackfillProgress | null): number | null {
	if (!p) return null;
	if (p.total) return Math.min(1, p.records / p.total);
	if (p.totalBytes) return Math.min(1, p.bytes / p.totalBytes);
	return null;
}

/**
 * Views start backfills inside their effects: the list is read untracked, or every change of
 * progress would re-run the effect that started the load, which would start another.
 */
class BackfillActivity {
	loads: BackfillLoad[] = $state.raw([]);

	private change(next: (loads: BackfillLoad[]) => BackfillLoad[]): void {
		this.loads = next(untrack(() => this.loads));
	}

	begin(id: number, ticker: string, stream: string): void {
		this.change((loads) => [...loads, { id, ticker, stream, progress: null }]);
	}

	progress(id: number, progress: BackfillProgress): void {
		this.change((loads) => loads.map((l) => (l.id === id ? { ...l, progress } : l)));
	}

	end(id: number): void {
		this.change((loads) => loads.filter((l) => l.id !== id));
	}
}

export const backfillActivity = new BackfillActivity();
