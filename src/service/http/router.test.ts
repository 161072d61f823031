/**
 * The route-lookup cache: matches are memoised, refusals never, and the cache stays within its
 * entry and byte bounds however many distinct valid paths arrive (oldest out first).
 */
import { describe, expect, it } from 'vitest';
import {
	RESOLVED_CACHE_MAX_BYTES,
	RESOLVED_CACHE_MAX_ENTRIES,
	resolveCached,
	resolvedCacheStats
} from './router';

describe('route-lookup cache', () => {
	it('memoises matches and never refusals', () => {
		const a = resolveCached('GET', '/v2/SPX/classic/gex_full');
		expect(a.kind).toBe('match');
		expect(resolveCached('GET', '/v2/SPX/classic/gex_full')).toBe(a);
		const before = resolvedCacheStats();
		for (let i = 0; i < 500; i++) {
			expect(resolveCached('GET', `/v2/${'Q'.repeat(200)}${i}/classic/gex_full`).kind).toBe(
				'invalid'
			);
			expect(resolveCached('POST', `/v2/SPX/classic/gex_full`).kind).toBe('method-not-allowed');
			expect(resolveCached('GET', `/nothing/${i}`).kind).toBe('not-found');
		}
		expect(resolvedCacheStats()).toEqual(before);
	});

	it('stays within its entry and byte bounds under many distinct valid paths', () => {
		const day = Date.UTC(2000, 0, 1);
		for (let i = 0; i < RESOLVED_CACHE_MAX_ENTRIES + 1500; i++) {
			const date = new Date(day + i * 86_400_000).toISOString().slice(0, 10);
			expect(resolveCached('GET', `/v2/hist/SPX/classic/gex_full/${date}`).kind).toBe('match');
			const stats = resolvedCacheStats();
			expect(stats.entries).toBeLessThanOrEqual(RESOLVED_CACHE_MAX_ENTRIES);
			expect(stats.bytes).toBeLessThanOrEqual(RESOLVED_CACHE_MAX_BYTES);
		}
		expect(resolvedCacheStats().entries).toBe(RESOLVED_CACHE_MAX_ENTRIES);
	});
});
