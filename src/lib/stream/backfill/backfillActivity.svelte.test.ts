/**
 * The backfills in flight as reactive state: a view that starts a backfill inside its effect
 * does not come to depend on the progress list (else each progress report would re-run the
 * effect and start another backfill, forever), while a reader of the list sees every change.
 */
import { flushSync } from 'svelte';
import { describe, expect, it } from 'vitest';
import { backfillActivity, loadedFraction } from './backfillActivity.svelte';

describe('backfillActivity', () => {
	it('starting, advancing and ending a load never re-runs the effect that started it', () => {
		let starts = 0;
		let seen: number[] = [];
		const stop = $effect.root(() => {
			$effect(() => {
				starts++;
				backfillActivity.begin(1, 'SPX', 'classic_gex_full');
			});
			$effect(() => {
				seen = backfillActivity.loads.map((l) => l.progress?.records ?? 0);
			});
		});
		flushSync();
		expect(starts).toBe(1);
		expect(seen).toEqual([0]);
		backfillActivity.progress(1, { records: 10, total: 40, bytes: 100 });
		flushSync();
		expect(seen).toEqual([10]);
		expect(loadedFraction(backfillActivity.loads[0].progress)).toBe(0.25);
		backfillActivity.end(1);
		flushSync();
		expect(seen).toEqual([]);
		expect(starts).toBe(1);
		stop();
	});

	it('reads how far a load is from records, else bytes, else not at all', () => {
		expect(loadedFraction(null)).toBeNull();
		expect(loadedFraction({ records: 5, bytes: 50, totalBytes: 200 })).toBe(0.25);
		expect(loadedFraction({ records: 5, bytes: 50 })).toBeNull();
		expect(loadedFraction({ records: 50, total: 40, bytes: 0 })).toBe(1);
	});
});
