/**
 * State view share links: `/<TICKER>/state/<category>?...`, the same habits as the Classic view
 * (viewState.ts): view state only, parameters at their default left out, strict parsing.
 *
 * GEX categories (gex_full|gex_zero|gex_one) draw the Classic strike histogram and take
 * `metric=oi`, `zoom`, `ov` (levels, priors, maxchange) and `theme`.
 * Greek categories (delta|gamma|vanna|charm _zero|_one) draw the mirrored greek ladder and take
 * `zoom`, `ov` (levels, priors, smile) and `theme`; they have no volume/OI metric (the profile
 * is by volume), so `metric` on a greek view is an error rather than silently dropped.
 */
import {
	isGexCategory,
	isGreekCategory,
	resolveCategory,
	type GexCategory,
	type GreekCategory
} from '../contract/categories';
import {
	formatStrike,
	OVERLAYS,
	parseMetric,
	parseOverlays,
	parseTheme,
	parseTicker,
	parseZoom,
	ViewStateError,
	withQuery,
	type Metric,
	type StrikeWindow,
	type Theme
} from './viewState';

export type StateCategory = GexCategory | GreekCategory;

/** Overlays of the greek ladder: level lines, prior ghost marks, the IV smile. */
export const LADDER_OVERLAYS = ['levels', 'priors', 'smile'] as const;
export type LadderOverlay = (typeof LADDER_OVERLAYS)[number];
export type StateOverlay = (typeof OVERLAYS)[number] | LadderOverlay;

export interface StateViewState {
	ticker: string;
	package: 'state';
	category: StateCategory;
	/** GEX categories only; 'vol' on greek categories. */
	metric: Metric;
	/** Strike window shown; null = automatic (around spot). */
	zoom: StrikeWindow | null;
	/** Overlays drawn, in the order of the category's overlay list. */
	overlays: StateOverlay[];
	theme: Theme | null;
}

/** The overlays a category offers, in URL order. */
export function overlaysOf(category: StateCategory): readonly StateOverlay[] {
	return isGexCategory(category) ? OVERLAYS : LADDER_OVERLAYS;
}

export function isGreekView(s: Pick<StateViewState, 'category'>): s is { category: GreekCategory } {
	return isGreekCategory(s.category);
}

/** The State view state of `/<ticker>/state/<category>?<search>` (aliases resolve). */
export function parseStateView(
	ticker: string,
	category: string,
	search: URLSearchParams
): StateViewState {
	const canonical = resolveCategory('state', category);
	if (!canonical || !(isGexCategory(canonical) || isGreekCategory(canonical))) {
		throw new ViewStateError(`unknown state category '${category}'`);
	}
	const rawMetric = search.get('metric');
	if (rawMetric !== null && !isGexCategory(canonical)) {
		throw new ViewStateError(`metric applies to the GEX categories only, not ${canonical}`);
	}
	const metric = parseMetric(rawMetric);
	return {
		ticker: parseTicker(ticker),
		package: 'state',
		category: canonical,
		metric,
		zoom: parseZoom(search.get('zoom')),
		overlays: parseOverlays(search.get('ov'), overlaysOf(canonical)),
		theme: parseTheme(search.get('theme'))
	};
}

export function stateViewUrl(s: StateViewState): string {
	const q = new URLSearchParams();
	if (isGexCategory(s.category) && s.metric !== 'vol') q.set('metric', s.metric);
	if (s.zoom) q.set('zoom', `${formatStrike(s.zoom.lo)}-${formatStrike(s.zoom.hi)}`);
	const offered = overlaysOf(s.category);
	const ov = offered.filter((o) => s.overlays.includes(o));
	if (ov.length !== offered.length) q.set('ov', ov.length ? ov.join(',') : 'none');
	if (s.theme) q.set('theme', s.theme);
	return withQuery(`/${s.ticker}/state/${s.category}`, q);
}

/**
 * The state after picking another category: overlays both kinds share (levels, priors) keep
 * their setting, the new kind's own overlays start on; the metric survives only between GEX
 * categories; the zoom survives (same ticker, same strikes).
 */
export function switchCategory(s: StateViewState, category: StateCategory): StateViewState {
	const before = overlaysOf(s.category);
	const overlays = overlaysOf(category).filter((o) =>
		before.includes(o) ? s.overlays.includes(o) : true
	);
	return {
		...s,
		category,
		metric: isGexCategory(category) ? s.metric : 'vol',
		overlays
	};
}
