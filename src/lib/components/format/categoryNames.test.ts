import { describe, expect, it } from 'vitest';
import { categoryName } from './categoryNames';

describe('categoryName', () => {
	it('names GEX categories the way the views do, with or without the package', () => {
		expect(categoryName('gex_zero')).toBe('0DTE');
		expect(categoryName('gex_one')).toBe('Next');
		expect(categoryName('classic/gex_full')).toBe('Full');
		expect(categoryName('orderflow')).toBe('orderflow');
	});
});
