import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GEX_CATEGORIES, GREEK_CATEGORIES } from '../contract/categories';
import { ALL_TICKERS } from '../contract/tickers';
import {
	LADDER_OVERLAYS,
	overlaysOf,
	parseStateView,
	stateViewUrl,
	switchCategory,
	type StateCategory,
	type StateViewState
} from './stateView';
import { OVERLAYS, ViewStateError } from './viewState';

function parseUrl(href: string): StateViewState {
	const url = new URL(href, 'http://x');
	const [, ticker, , category] = url.pathname.split('/');
	return parseStateView(ticker, category, url.searchParams);
}

const strike = fc.integer({ min: 1, max: 2_000_000 }).map((c) => c / 100);
const zoom = fc.option(
	fc
		.tuple(strike, strike)
		.filter(([a, b]) => a !== b)
		.map(([a, b]) => ({ lo: Math.min(a, b), hi: Math.max(a, b) })),
	{ nil: null }
);
const theme = fc.constantFrom('dark' as const, 'light' as const, null);

const gexState = fc.record({
	ticker: fc.constantFrom(...ALL_TICKERS),
	package: fc.constant('state' as const),
	category: fc.constantFrom(...GEX_CATEGORIES) as fc.Arbitrary<StateCategory>,
	metric: fc.constantFrom('vol' as const, 'oi' as const),
	zoom,
	overlays: fc.subarray<StateViewState['overlays'][number]>([...OVERLAYS]),
	theme
});

const greekState = fc.record({
	ticker: fc.constantFrom(...ALL_TICKERS),
	package: fc.constant('state' as const),
	category: fc.constantFrom(...GREEK_CATEGORIES) as fc.Arbitrary<StateCategory>,
	metric: fc.constant('vol' as const),
	zoom,
	overlays: fc.subarray<StateViewState['overlays'][number]>([...LADDER_OVERLAYS]),
	theme
});

const anyState = fc.oneof(gexState, greekState);

describe('state view share links', () => {
	it('round-trips every GEX and greek state through its URL', () => {
		fc.assert(
			fc.property(anyState, (s) => {
				expect(parseUrl(stateViewUrl(s))).toEqual(s);
			})
		);
	});

	it('gives each state one canonical URL', () => {
		fc.assert(
			fc.property(anyState, (s) => {
				const href = stateViewUrl(s);
				expect(stateViewUrl(parseUrl(href))).toBe(href);
			})
		);
	});

	it('resolves the state aliases (gamma = gamma_zero, onevanna = vanna_one, zero = gex_zero)', () => {
		expect(parseStateView('spx', 'gamma', new URLSearchParams()).category).toBe('gamma_zero');
		expect(parseStateView('SPX', 'onevanna', new URLSearchParams()).category).toBe('vanna_one');
		const s = parseStateView('ndx', 'zero', new URLSearchParams('metric=oi'));
		expect(stateViewUrl(s)).toBe('/NDX/state/gex_zero?metric=oi');
	});

	it('defaults: every overlay of the kind on, no parameters in the URL', () => {
		const g = parseStateView('SPX', 'delta_one', new URLSearchParams());
		expect(g.overlays).toEqual([...LADDER_OVERLAYS]);
		expect(stateViewUrl(g)).toBe('/SPX/state/delta_one');
		const h = parseStateView('SPX', 'gex_full', new URLSearchParams('ov=none&zoom=7000-7400'));
		expect(h.overlays).toEqual([]);
		expect(stateViewUrl(h)).toBe('/SPX/state/gex_full?zoom=7000-7400&ov=none');
	});

	it('refuses malformed parameters with a clear error', () => {
		const bad: [string, string, string][] = [
			['NOPE', 'gex_full', ''],
			['SPX', 'orderflow', ''],
			['SPX', 'volume_zero', ''],
			['SPX', 'gamma_two', ''],
			['SPX', 'gamma_zero', 'metric=oi'],
			['SPX', 'gamma_zero', 'ov=maxchange'],
			['SPX', 'gex_full', 'ov=smile'],
			['SPX', 'gex_full', 'metric=delta'],
			['SPX', 'charm_one', 'zoom=7100-6800'],
			['SPX', 'charm_one', 'theme=blue']
		];
		for (const [t, c, q] of bad) {
			expect(() => parseStateView(t, c, new URLSearchParams(q)), `${c}?${q}`).toThrow(
				ViewStateError
			);
		}
	});

	it('switching category keeps shared overlays, turns on the new kind, drops a greek metric', () => {
		fc.assert(
			fc.property(
				anyState,
				fc.constantFrom<StateCategory>(...GEX_CATEGORIES, ...GREEK_CATEGORIES),
				(s, next) => {
					const t = switchCategory(s, next);
					expect(t.category).toBe(next);
					// Always a state the URL can carry.
					expect(parseUrl(stateViewUrl(t))).toEqual(t);
					for (const o of overlaysOf(next)) {
						const shared = overlaysOf(s.category).includes(o);
						expect(t.overlays.includes(o)).toBe(shared ? s.overlays.includes(o) : true);
					}
					expect(t.zoom).toEqual(s.zoom);
				}
			)
		);
	});
});
