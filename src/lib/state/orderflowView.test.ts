import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALL_TICKERS } from '../contract/tickers';
import {
	FLOW_CHARTS,
	FLOW_EXPIRIES,
	orderflowViewUrl,
	parseOrderflowView,
	type OrderflowViewState
} from './orderflowView';
import { ViewStateError } from './viewState';

function parseUrl(href: string): OrderflowViewState {
	const url = new URL(href, 'http://x');
	const [, ticker, pkg] = url.pathname.split('/');
	expect(pkg).toBe('orderflow');
	return parseOrderflowView(ticker, url.searchParams);
}

const second = fc.integer({ min: 9.5 * 3600, max: 16 * 3600 });
const state: fc.Arbitrary<OrderflowViewState> = fc.record({
	ticker: fc.constantFrom(...ALL_TICKERS),
	charts: fc.subarray([...FLOW_CHARTS]),
	expiries: fc.subarray([...FLOW_EXPIRIES], { minLength: 1 }),
	zoom: fc.option(
		fc
			.tuple(second, second)
			.filter(([a, b]) => a !== b && !(Math.min(a, b) === 34200 && Math.max(a, b) === 57600))
			.map(([a, b]) => ({ from: Math.min(a, b), to: Math.max(a, b) }))
	),
	theme: fc.constantFrom(null, 'dark' as const, 'light' as const)
});

describe('orderflow view state', () => {
	it('round-trips every state through its URL, and the URL is canonical', () => {
		fc.assert(
			fc.property(state, (s) => {
				const url = orderflowViewUrl(s);
				expect(parseUrl(url)).toEqual(s);
				expect(orderflowViewUrl(parseUrl(url))).toBe(url);
			})
		);
	});

	it('leaves defaults out and writes readable clock windows', () => {
		expect(orderflowViewUrl(parseOrderflowView('spx', new URLSearchParams()))).toBe(
			'/SPX/orderflow'
		);
		const s = parseOrderflowView(
			'SPX',
			new URLSearchParams('charts=dex,spot&exp=one&zoom=1000-113015')
		);
		expect(s).toMatchObject({
			charts: ['dex', 'spot'],
			expiries: ['one'],
			zoom: { from: 36000, to: 41415 }
		});
		expect(orderflowViewUrl(s)).toBe('/SPX/orderflow?charts=dex,spot&exp=one&zoom=1000-113015');
		// The whole session is no zoom.
		expect(orderflowViewUrl({ ...s, zoom: { from: 34200, to: 57600 } })).not.toContain('zoom');
		expect(orderflowViewUrl({ ...s, charts: [] })).toContain('charts=none');
	});

	it('refuses what it cannot show, with a reason', () => {
		const bad = [
			['NOPE', ''],
			['SPX', 'charts=dex,vega'],
			['SPX', 'exp=none'],
			['SPX', 'exp=two'],
			['SPX', 'zoom=1130-1000'],
			['SPX', 'zoom=0900-1000'],
			['SPX', 'zoom=1000-1700'],
			['SPX', 'zoom=10:00-11:00'],
			['SPX', 'zoom=1000'],
			['SPX', 'theme=blue']
		];
		for (const [t, q] of bad) {
			expect(() => parseOrderflowView(t, new URLSearchParams(q)), q).toThrow(ViewStateError);
		}
	});
});
