/**
 * Packages and data categories, with the alias table of the REST routes.
 *
 * Canonical names (`gex_full`, `gamma_zero`, ...) are what GET /{package}/categories lists,
 * what WebSocket group names and history files use. REST snapshot routes also accept the
 * documented aliases (`full`, `zero`, `one`; `gamma` = `gamma_zero`; `onegamma` = `gamma_one`).
 */

export const PACKAGES = ['classic', 'state', 'orderflow'] as const;
export type PackageName = (typeof PACKAGES)[number];

export const GREEKS = ['delta', 'gamma', 'vanna', 'charm'] as const;
export type Greek = (typeof GREEKS)[number];

/** Every data category, in the order of the OpenAPI `data_category` enum. */
export const CANONICAL_CATEGORIES = [
	'gex_full',
	'gex_zero',
	'gex_one',
	'volume_zero',
	'volume_one',
	'delta_zero',
	'delta_one',
	'gamma_zero',
	'gamma_one',
	'vanna_zero',
	'vanna_one',
	'charm_zero',
	'charm_one',
	'orderflow'
] as const;
export type CanonicalCategory = (typeof CANONICAL_CATEGORIES)[number];

export type GexCategory = 'gex_full' | 'gex_zero' | 'gex_one';
export type GreekCategory = `${Greek}_${'zero' | 'one'}`;
export type VolumeCategory = 'volume_zero' | 'volume_one';

export const GEX_CATEGORIES: readonly GexCategory[] = ['gex_full', 'gex_zero', 'gex_one'];
export const GREEK_CATEGORIES: readonly GreekCategory[] = GREEKS.flatMap((g) => [
	`${g}_zero` as const,
	`${g}_one` as const
]);
export const VOLUME_CATEGORIES: readonly VolumeCategory[] = ['volume_zero', 'volume_one'];

/**
 * Canonical categories per package as GET /{package}/categories answers them (data_category
 * order). `volume_zero`/`volume_one` are State data (strike volume profiles) published on the
 * WebSocket feed only (their frames are zstd JSON); the REST state route does not serve them.
 */
export const PACKAGE_CATEGORIES: Readonly<Record<PackageName, readonly CanonicalCategory[]>> = {
	classic: ['gex_full', 'gex_zero', 'gex_one'],
	state: CANONICAL_CATEGORIES.filter((c) => c !== 'orderflow'),
	orderflow: ['orderflow']
};

/** Categories the REST snapshot route /{ticker}/{package}/{category} serves, per package. */
export const REST_CATEGORIES: Readonly<Record<PackageName, readonly CanonicalCategory[]>> = {
	classic: GEX_CATEGORIES,
	state: [...GEX_CATEGORIES, ...GREEK_CATEGORIES],
	orderflow: ['orderflow']
};

const CLASSIC_ALIASES: Readonly<Record<string, GexCategory>> = {
	full: 'gex_full',
	gex_full: 'gex_full',
	zero: 'gex_zero',
	gex_zero: 'gex_zero',
	one: 'gex_one',
	gex_one: 'gex_one'
};

const STATE_ALIASES: Readonly<Record<string, GexCategory | GreekCategory>> = {
	...CLASSIC_ALIASES,
	...Object.fromEntries(
		GREEKS.flatMap((g) => [
			[g, `${g}_zero` as const],
			[`${g}_zero`, `${g}_zero` as const],
			[`${g}_one`, `${g}_one` as const],
			[`one${g}`, `${g}_one` as const]
		])
	)
};

const ORDERFLOW_ALIASES: Readonly<Record<string, 'orderflow'>> = { orderflow: 'orderflow' };

const ALIASES: Readonly<Record<PackageName, Readonly<Record<string, CanonicalCategory>>>> = {
	classic: CLASSIC_ALIASES,
	state: STATE_ALIASES,
	orderflow: ORDERFLOW_ALIASES
};

export function isPackage(value: unknown): value is PackageName {
	return typeof value === 'string' && (PACKAGES as readonly string[]).includes(value);
}

export function isCanonicalCategory(value: unknown): value is CanonicalCategory {
	return typeof value === 'string' && (CANONICAL_CATEGORIES as readonly string[]).includes(value);
}

/**
 * The canonical category a REST route's raw `{category}` segment names in `pkg`, or undefined
 * when the package does not serve it (e.g. `gamma` on classic, `volume_zero` on REST state).
 */
export function resolveCategory(pkg: PackageName, raw: string): CanonicalCategory | undefined {
	return Object.hasOwn(ALIASES[pkg], raw) ? ALIASES[pkg][raw] : undefined;
}

/** Every raw spelling a REST route accepts for `pkg` (canonical names and aliases). */
export function categorySpellings(pkg: PackageName): string[] {
	return Object.keys(ALIASES[pkg]);
}

/** The body of GET /{package}/categories. */
export function categoriesResponse(pkg: PackageName): string[] {
	return [...PACKAGE_CATEGORIES[pkg]];
}

export function isGexCategory(c: string): c is GexCategory {
	return c === 'gex_full' || c === 'gex_zero' || c === 'gex_one';
}

export function isGreekCategory(c: string): c is GreekCategory {
	return (GREEK_CATEGORIES as readonly string[]).includes(c);
}

export function isVolumeCategory(c: string): c is VolumeCategory {
	return c === 'volume_zero' || c === 'volume_one';
}

/** The greek and expiry set of a greek category: `gamma_one` -> {greek: 'gamma', expiry: 'one'}. */
export function splitGreekCategory(c: GreekCategory): { greek: Greek; expiry: 'zero' | 'one' } {
	const [greek, expiry] = c.split('_') as [Greek, 'zero' | 'one'];
	return { greek, expiry };
}

/**
 * Categories of one package in the end-of-day report (15 members in all): the REST categories,
 * canonical, sorted by name as the report lists them.
 */
export function eodCategories(pkg: PackageName): CanonicalCategory[] {
	return [...REST_CATEGORIES[pkg]].sort();
}
