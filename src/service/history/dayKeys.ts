/**
 * What one history day file holds, under a payload profile: a category's payload, or
 * (`state_gex_*`) the State shape of a GEX chain where it differs from the classic one (the
 * observed profile reports the State chains' OI side as 0). A package's category maps to one
 * day key; a ticker-day is complete when every day key of its profile is on disk.
 */
import { CANONICAL_CATEGORIES } from '../../lib/contract/categories';
import type { CanonicalCategory, PackageName } from '../source';
import {
	DEFAULT_PAYLOAD_PROFILE,
	observedStateChain,
	type PayloadProfile
} from '../engine/profiles';
import type { GexChainValue } from '../engine/categoryPayloads';
import { categoryValue } from '../engine/tickerSnapshot';
import type { TickerDay } from '../engine/tickerDay';
import type { ViewFormat } from '../engine/views';

export type DayKey = CanonicalCategory | `state_${CanonicalCategory}`;

const STATE_GEX_KEYS: readonly DayKey[] = CANONICAL_CATEGORIES.filter((c) =>
	c.startsWith('gex_')
).map((c) => `state_${c}` as DayKey);

/** Every day key of a ticker-day under `profile`, in file order. */
export function dayKeysOf(profile: PayloadProfile = DEFAULT_PAYLOAD_PROFILE): readonly DayKey[] {
	return profile === 'observed'
		? [...CANONICAL_CATEGORIES, ...STATE_GEX_KEYS]
		: CANONICAL_CATEGORIES;
}

/** The day key a package's category is served from under `profile`. */
export function dayKeyOf(
	pkg: PackageName,
	category: CanonicalCategory,
	profile: PayloadProfile = DEFAULT_PAYLOAD_PROFILE
): DayKey {
	return pkg === 'state' && category.startsWith('gex_') && profile === 'observed'
		? `state_${category}`
		: category;
}

/** True when every key needs only gamma across the chain (TickerDay.step's 'gamma' mode). */
export function gammaOnly(keys: readonly DayKey[]): boolean {
	return keys.every((k) => k.replace(/^state_/, '').startsWith('gex_'));
}

/**
 * The cheapest TickerDay.step mode that gives `keys` the live loop's values: 'gamma' for GEX
 * chains only, 'front' when no key reads the all-expiries set (the zero / one sets and orderflow
 * read only the two front expiries' contracts), else 'rings'.
 */
export function stepModeOf(keys: readonly DayKey[]): 'gamma' | 'front' | 'rings' {
	if (gammaOnly(keys)) return 'gamma';
	return keys.some((k) => k.endsWith('_full')) ? 'rings' : 'front';
}

/** One day key's value at the day's current tick, as the live loop publishes it. */
export function dayValue(
	day: TickerDay,
	key: DayKey,
	format: ViewFormat,
	profile: PayloadProfile = DEFAULT_PAYLOAD_PROFILE
): unknown {
	if (key.startsWith('state_')) {
		const chain = categoryValue(day, key.slice(6) as CanonicalCategory, format);
		return observedStateChain(chain as GexChainValue);
	}
	return categoryValue(day, key as CanonicalCategory, format, profile);
}
