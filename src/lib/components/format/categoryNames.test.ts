import { describe, expect, it } from 'vitest';
import { categoryName } from './categoryNames';

describe('categoryName', () => {
	it('names GEX categories the way the views do, with or without the package', () => {
		expect(categoryName('gex_zero')).toBe('0DTE');
		expect(categoryName('gex_one')).toBe('Next');
		expect(categoryName('classic/gex_full')).toBe('Full');
		expect(categoryName('orderflow')).toBe('orderflow');
		expect(categoryName('vanna_one')).toBe('Vanna Next');
		expect(categoryName('state/delta_zero')).toBe('Delta 0DTE');
		// Greek profiles exist per expiry only: no "Full" greek, and unknown greeks stay ids.
		expect(categoryName('delta_full')).toBe('delta_full');
		expect(categoryName('theta_zero')).toBe('theta_zero');
	});
});
