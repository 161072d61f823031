/**
 * Share links: every view's state lives in its URL, and nothing else does. A link carries view
 * state only (ticker, package, category, metric, zoom window, overlays, theme), never data: the
 * recipient sees the view with their own subscription.
 *
 * Classic view: `/<TICKER>/classic/<category>?metric=oi&zoom=6800-7100&ov=priors,levels&theme=light`
 * Levels view:  `/levels/<TICKER>?fut=1&theme=light`
 * Parameters at their default are left out, so the canonical URL of a state is unique.
 */
import { isGexCategory, resolveCategory, type GexCategory } from '../contract/categories';
import { isTicker } from '../contract/tickers';

export type Metric = 'vol' | 'oi';
export type Theme = 'dark' | 'light';
export const OVERLAYS = ['levels', 'priors', 'maxchange'] as const;
export type Overlay = (typeof OVERLAYS)[number];

export interface StrikeWindow {
	lo: number;
	hi: number;
}

export interface ClassicViewState {
	ticker: string;
	package: 'classic';
	category: GexCategory;
	metric: Metric;
	/** Strike window shown; null = automatic (around spot). */
	zoom: StrikeWindow | null;
	/** Overlays drawn, in OVERLAYS order. */
	overlays: Overlay[];
	/** null = the viewer's own preference. */
	theme: Theme | null;
}

export interface LevelsViewState {
	ticker: string;
	/** Show the levels converted to the future (ES for SPX, ...). */
	futures: boolean;
	theme: Theme | null;
}

export const DEFAULT_CLASSIC: Omit<ClassicViewState, 'ticker' | 'category'> = {
	package: 'classic',
	metric: 'vol',
	zoom: null,
	overlays: [...OVERLAYS],
	theme: null
};

export class ViewStateError extends Error {}

export function parseTheme(raw: string | null): Theme | null {
	if (raw === null) return null;
	if (raw === 'dark' || raw === 'light') return raw;
	throw new ViewStateError(`theme must be dark or light, got '${raw}'`);
}

/** Strike numbers in a URL: finite, positive, at most 2 decimals (strikes are cents at most). */
export function formatStrike(n: number): string {
	return String(Math.round(n * 100) / 100);
}

/** `metric`: vol (the default, when absent) or oi; anything else is an error. */
export function parseMetric(raw: string | null): Metric {
	const metric = raw ?? 'vol';
	if (metric !== 'vol' && metric !== 'oi') {
		throw new ViewStateError(`metric must be vol or oi, got '${metric}'`);
	}
	return metric;
}

export function parseZoom(raw: string | null): StrikeWindow | null {
	if (raw === null || raw === '') return null;
	const m = /^(\d+(?:\.\d{1,2})?)-(\d+(?:\.\d{1,2})?)$/.exec(raw);
	if (!m) throw new ViewStateError(`zoom must be <low>-<high> strikes, got '${raw}'`);
	const lo = Number(m[1]);
	const hi = Number(m[2]);
	if (!(lo < hi)) throw new ViewStateError(`zoom low ${lo} must be below high ${hi}`);
	return { lo, hi };
}

/** Overlays named in `ov` (default: all `offered`), in `offered` order; State views pass their own. */
export function parseOverlays<T extends string = Overlay>(
	raw: string | null,
	offered: readonly T[] = OVERLAYS as readonly string[] as readonly T[]
): T[] {
	if (raw === null) return [...offered];
	if (raw === 'none' || raw === '') return [];
	const names = raw.split(',');
	for (const n of names) {
		if (!(offered as readonly string[]).includes(n)) {
			throw new ViewStateError(`unknown overlay '${n}' (expected ${offered.join(', ')})`);
		}
	}
	return offered.filter((o) => names.includes(o));
}

export function parseTicker(raw: string): string {
	const upper = raw.toUpperCase();
	if (!isTicker(upper)) throw new ViewStateError(`unknown ticker '${raw}'`);
	return upper;
}

/** The Classic view state of `/<ticker>/classic/<category>?<search>`. */
export function parseClassicView(
	ticker: string,
	category: string,
	search: URLSearchParams
): ClassicViewState {
	const canonical = resolveCategory('classic', category);
	if (!canonical || !isGexCategory(canonical)) {
		throw new ViewStateError(`unknown classic category '${category}'`);
	}
	const metric = parseMetric(search.get('metric'));
	return {
		ticker: parseTicker(ticker),
		package: 'classic',
		category: canonical,
		metric,
		zoom: parseZoom(search.get('zoom')),
		overlays: parseOverlays(search.get('ov')),
		theme: parseTheme(search.get('theme'))
	};
}

export function withQuery(path: string, q: URLSearchParams): string {
	const s = q.toString();
	// Commas and hyphens are safe in a query; keep links readable.
	return s ? `${path}?${s.replaceAll('%2C', ',')}` : path;
}

export function classicViewUrl(s: ClassicViewState): string {
	const q = new URLSearchParams();
	if (s.metric !== 'vol') q.set('metric', s.metric);
	if (s.zoom) q.set('zoom', `${formatStrike(s.zoom.lo)}-${formatStrike(s.zoom.hi)}`);
	const ov = OVERLAYS.filter((o) => s.overlays.includes(o));
	if (ov.length !== OVERLAYS.length) q.set('ov', ov.length ? ov.join(',') : 'none');
	if (s.theme) q.set('theme', s.theme);
	return withQuery(`/${s.ticker}/classic/${s.category}`, q);
}

export function parseLevelsView(ticker: string, search: URLSearchParams): LevelsViewState {
	const fut = search.get('fut');
	if (fut !== null && fut !== '0' && fut !== '1') {
		throw new ViewStateError(`fut must be 0 or 1, got '${fut}'`);
	}
	return {
		ticker: parseTicker(ticker),
		futures: fut === '1',
		theme: parseTheme(search.get('theme'))
	};
}

export function levelsViewUrl(s: LevelsViewState): string {
	const q = new URLSearchParams();
	if (s.futures) q.set('fut', '1');
	if (s.theme) q.set('theme', s.theme);
	return withQuery(`/levels/${s.ticker}`, q);
}
