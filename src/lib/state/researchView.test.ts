import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RESEARCH_METRICS } from '../contract/research';
import {
	displaysFor,
	parseResearchView,
	researchApiPath,
	researchViewUrl,
	type ResearchViewState
} from './researchView';
import { ViewStateError } from './viewState';

function parseUrl(url: string): ResearchViewState {
	const u = new URL(url, 'http://x');
	const [, ticker, , metric] = u.pathname.split('/');
	return parseResearchView(ticker, metric, u.searchParams);
}

const date = fc
	.date({
		min: new Date('2025-01-01T00:00:00Z'),
		max: new Date('2030-12-31T00:00:00Z'),
		noInvalidDate: true
	})
	.map((d) => d.toISOString().slice(0, 10));

const stateArb: fc.Arbitrary<ResearchViewState> = fc
	.record({
		ticker: fc.constantFrom('SPX', 'AAPL', 'ES_SPX', 'NDX'),
		metric: fc.constantFrom(...RESEARCH_METRICS),
		viewPick: fc.nat(3),
		strikes: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
		dtes: fc.option(fc.tuple(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 400 })), {
			nil: undefined
		}),
		expFilter: fc.option(
			fc.uniqueArray(fc.oneof(date, fc.constantFrom('weekly', 'monthly', '0dte', 'all')), {
				minLength: 1,
				maxLength: 4
			}),
			{ nil: undefined }
		),
		contract_filter: fc.option(fc.constantFrom('calls', 'puts', 'all' as const), {
			nil: undefined
		}),
		moneyness_filter: fc.option(fc.constantFrom('atm', 'itm', 'ntm', 'otm' as const), {
			nil: undefined
		}),
		contract_agg: fc.option(fc.boolean(), { nil: undefined }),
		limit_y: fc.option(fc.boolean(), { nil: undefined }),
		axis: fc.constantFrom('strike', 'moneyness' as const),
		expiries: fc.option(fc.uniqueArray(date, { minLength: 1, maxLength: 6 }), { nil: null }),
		theme: fc.constantFrom(null, 'dark', 'light' as const)
	})
	.map((r) => {
		const displays = displaysFor(r.metric);
		const [lo, hi] = r.dtes ? [...r.dtes].sort((a, b) => a - b) : [undefined, undefined];
		return {
			ticker: r.ticker,
			metric: r.metric,
			view: displays[r.viewPick % displays.length],
			axis: r.axis,
			expiries: r.expiries ? [...r.expiries].sort() : null,
			theme: r.theme,
			filters: {
				strikes: r.strikes,
				start_dte: lo,
				end_dte: hi,
				expiration_filter: r.expFilter?.join(','),
				contract_filter: r.contract_filter,
				moneyness_filter: r.moneyness_filter,
				// false is the default and is left out of the URL: normalise to undefined.
				contract_agg: r.contract_agg || undefined,
				limit_y: r.limit_y || undefined
			}
		};
	});

/** Drops undefined members so toEqual compares what a state means. */
function clean(s: ResearchViewState): ResearchViewState {
	return {
		...s,
		filters: Object.fromEntries(Object.entries(s.filters).filter(([, v]) => v !== undefined))
	};
}

describe('research view state', () => {
	it('round-trips every state through its URL, and the URL is canonical', () => {
		fc.assert(
			fc.property(stateArb, (state) => {
				const url = researchViewUrl(state);
				const back = parseUrl(url);
				expect(clean(back)).toEqual(clean(state));
				expect(researchViewUrl(back)).toBe(url);
			}),
			{ numRuns: 500 }
		);
	});

	it('defaults: iv_mid opens as a surface, gex_oi as strike bars, max_pain as a term line', () => {
		expect(parseUrl('/SPX/research/iv_mid').view).toBe('surface');
		expect(parseUrl('/SPX/research/gex_oi').view).toBe('strikes');
		expect(parseUrl('/SPX/research/max_pain').view).toBe('term');
		expect(researchViewUrl(parseUrl('/SPX/research/iv_mid?view=surface'))).toBe(
			'/SPX/research/iv_mid'
		);
		expect(researchViewUrl(parseUrl('/spx/research/gex_oi?contract_agg=false'))).toBe(
			'/SPX/research/gex_oi'
		);
	});

	it('refuses bad values with a sentence naming the parameter', () => {
		const bad: [string, RegExp][] = [
			['/SPX/research/nope', /unknown research metric 'nope'/],
			['/S$X/research/iv_mid', /not a ticker/],
			['/SPX/research/gex_oi?strikes=0', /strikes must be between 1 and 1000/],
			['/SPX/research/gex_oi?strikes=2.5', /strikes must be a whole number/],
			['/SPX/research/gex_oi?start_dte=-1', /start_dte must be a whole number/],
			['/SPX/research/gex_oi?start_dte=9&end_dte=3', /start_dte 9 must not be after end_dte 3/],
			[
				'/SPX/research/gex_oi?contract_filter=both',
				/contract_filter must be one of calls, puts, all/
			],
			['/SPX/research/gex_oi?moneyness_filter=deep', /moneyness_filter must be one of/],
			['/SPX/research/gex_oi?expiration_filter=2026-02-30', /expiration_filter '2026-02-30'/],
			['/SPX/research/gex_oi?limit_y=yes', /limit_y must be one of true, false/],
			['/SPX/research/gex_oi?view=cube', /view must be one of surface, skew, term, strikes/],
			['/SPX/research/max_pain?view=surface', /no surface view/],
			['/SPX/research/iv_mid?exp=tomorrow', /exp 'tomorrow'/],
			['/SPX/research/iv_mid?url=http://evil', /unknown parameter 'url'/],
			['/SPX/research/iv_mid?strikes=5&strikes=6', /given twice/]
		];
		for (const [url, message] of bad) {
			expect(() => parseUrl(url), url).toThrow(ViewStateError);
			expect(() => parseUrl(url), url).toThrow(message);
		}
	});

	it('the api path asks JSON with the upstream view and the filters, sorted', () => {
		const s = parseUrl('/SPX/research/gex_oi?strikes=30&end_dte=7&contract_agg=true');
		expect(researchApiPath(s)).toBe(
			'research/SPX/gex_oi?contract_agg=true&end_dte=7&format=json&strikes=30'
		);
		const surface = parseUrl('/SPX/research/iv_mid?axis=moneyness&theme=light');
		expect(researchApiPath(surface)).toBe('research/SPX/iv_mid?format=json&view=surface');
		// Skew expiries are chosen client-side: changing them must not change the request.
		const skew = parseUrl('/SPX/research/iv_mid?view=skew&exp=2026-11-23');
		expect(researchApiPath(skew)).toBe('research/SPX/iv_mid?format=json&view=skew');
	});
});
