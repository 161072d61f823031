import { describe, expect, it } from 'vitest';
import {
	CANONICAL_CATEGORIES,
	categoriesResponse,
	eodCategories,
	PACKAGES,
	resolveCategory
} from './categories';

describe('categories', () => {
	it('resolves classic aliases', () => {
		expect(resolveCategory('classic', 'full')).toBe('gex_full');
		expect(resolveCategory('classic', 'gex_zero')).toBe('gex_zero');
		expect(resolveCategory('classic', 'one')).toBe('gex_one');
		expect(resolveCategory('classic', 'gamma')).toBeUndefined();
		expect(resolveCategory('classic', 'toString')).toBeUndefined();
	});

	it('resolves state greek aliases (bare greek = 0DTE, one<greek> = next expiry)', () => {
		expect(resolveCategory('state', 'gamma')).toBe('gamma_zero');
		expect(resolveCategory('state', 'gamma_zero')).toBe('gamma_zero');
		expect(resolveCategory('state', 'onevanna')).toBe('vanna_one');
		expect(resolveCategory('state', 'charm_one')).toBe('charm_one');
		expect(resolveCategory('state', 'full')).toBe('gex_full');
		expect(resolveCategory('state', 'volume_zero')).toBeUndefined();
		expect(resolveCategory('state', 'orderflow')).toBeUndefined();
	});

	it('resolves orderflow', () => {
		expect(resolveCategory('orderflow', 'orderflow')).toBe('orderflow');
		expect(resolveCategory('orderflow', 'gex_full')).toBeUndefined();
	});

	it('partitions every data category across the packages', () => {
		const all = PACKAGES.flatMap((p) => categoriesResponse(p));
		expect(new Set(all)).toEqual(new Set(CANONICAL_CATEGORIES));
		expect(categoriesResponse('classic')).toEqual(['gex_full', 'gex_zero', 'gex_one']);
		expect(categoriesResponse('orderflow')).toEqual(['orderflow']);
	});

	it('has the 15 end-of-day report members', () => {
		expect(PACKAGES.flatMap((p) => eodCategories(p))).toHaveLength(15);
		expect(eodCategories('state')).toEqual([
			'charm_one', 'charm_zero', 'delta_one', 'delta_zero', 'gamma_one', 'gamma_zero',
			'gex_full', 'gex_one', 'gex_zero', 'vanna_one', 'vanna_zero'
		]); // prettier-ignore
	});
});
