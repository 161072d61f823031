import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALL_TICKERS } from '../contract/tickers';
import {
	classicViewUrl,
	levelsViewUrl,
	OVERLAYS,
	parseClassicView,
	parseLevelsView,
	ViewStateError,
	type ClassicViewState
} from './viewState';

function parseUrl(href: string): ClassicViewState {
	const url = new URL(href, 'http://x');
	const [, ticker, , category] = url.pathname.split('/');
	return parseClassicView(ticker, category, url.searchParams);
}

const strike = fc.integer({ min: 1, max: 2_000_000 }).map((c) => c / 100);

const classicState = fc.record({
	ticker: fc.constantFrom(...ALL_TICKERS),
	package: fc.constant('classic' as const),
	category: fc.constantFrom('gex_full' as const, 'gex_zero' as const, 'gex_one' as const),
	metric: fc.constantFrom('vol' as const, 'oi' as const),
	zoom: fc.option(
		fc
			.tuple(strike, strike)
			.filter(([a, b]) => a !== b)
			.map(([a, b]) => ({ lo: Math.min(a, b), hi: Math.max(a, b) })),
		{ nil: null }
	),
	overlays: fc.subarray([...OVERLAYS]),
	theme: fc.constantFrom('dark' as const, 'light' as const, null)
});

describe('classic view share links', () => {
	it('round-trips every state through its URL', () => {
		fc.assert(
			fc.property(classicState, (s) => {
				expect(parseUrl(classicViewUrl(s))).toEqual(s);
			})
		);
	});

	it('gives each state one canonical URL (URL -> state -> URL is stable)', () => {
		fc.assert(
			fc.property(classicState, (s) => {
				const href = classicViewUrl(s);
				expect(classicViewUrl(parseUrl(href))).toBe(href);
			})
		);
	});

	it('resolves category aliases and lower-case tickers', () => {
		const s = parseClassicView('spx', 'zero', new URLSearchParams());
		expect(s.ticker).toBe('SPX');
		expect(s.category).toBe('gex_zero');
		expect(classicViewUrl(s)).toBe('/SPX/classic/gex_zero');
	});

	it('refuses malformed parameters with a clear error', () => {
		const bad: [string, string, string][] = [
			['NOPE', 'gex_full', ''],
			['SPX', 'gamma', ''],
			['SPX', 'gex_full', 'metric=delta'],
			['SPX', 'gex_full', 'zoom=7100-6800'],
			['SPX', 'gex_full', 'zoom=abc'],
			['SPX', 'gex_full', 'ov=priors,bogus'],
			['SPX', 'gex_full', 'theme=blue']
		];
		for (const [t, c, q] of bad) {
			expect(() => parseClassicView(t, c, new URLSearchParams(q))).toThrow(ViewStateError);
		}
	});

	it('never carries data, only view parameters', () => {
		fc.assert(
			fc.property(classicState, (s) => {
				const keys = [...new URL(classicViewUrl(s), 'http://x').searchParams.keys()];
				for (const k of keys) expect(['metric', 'zoom', 'ov', 'theme']).toContain(k);
			})
		);
	});
});

describe('levels view share links', () => {
	it('round-trips', () => {
		fc.assert(
			fc.property(
				fc.record({
					ticker: fc.constantFrom(...ALL_TICKERS),
					futures: fc.boolean(),
					theme: fc.constantFrom('dark' as const, 'light' as const, null)
				}),
				(s) => {
					const url = new URL(levelsViewUrl(s), 'http://x');
					expect(parseLevelsView(url.pathname.split('/')[2], url.searchParams)).toEqual(s);
				}
			)
		);
	});
});
