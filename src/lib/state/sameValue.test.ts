import { describe, expect, it } from 'vitest';
import { keepWhileEqual } from './sameValue';

describe('keepWhileEqual', () => {
	it('hands back the first object while later ones are structurally equal', () => {
		const keep = keepWhileEqual<{ ticker: string; strikes: number[] }>();
		const a = { ticker: 'SPX', strikes: [1, 2] };
		expect(keep(a)).toBe(a);
		expect(keep({ ticker: 'SPX', strikes: [1, 2] })).toBe(a);
	});

	it('takes a changed value, then keeps that one', () => {
		const keep = keepWhileEqual<{ ticker: string; day: string | null }>();
		const a = { ticker: 'SPX', day: null };
		const b = { ticker: 'SPX', day: '2026-11-20' };
		keep(a);
		expect(keep(b)).toBe(b);
		expect(keep({ ticker: 'SPX', day: '2026-11-20' })).toBe(b);
		// Back to the first shape is a change again, not a return of the stale object.
		expect(keep({ ticker: 'SPX', day: null })).not.toBe(a);
	});

	it('keeps nothing between two keepers', () => {
		const a = { n: 1 };
		keepWhileEqual<{ n: number }>()(a);
		const other = keepWhileEqual<{ n: number }>();
		const b = { n: 1 };
		expect(other(b)).toBe(b);
	});
});
