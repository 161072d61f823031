import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { categorySpellings, PACKAGES, resolveCategory } from './categories';
import { ALL_TICKERS } from './tickers';
import {
	GEX_ONLY_ERROR,
	getRoute,
	matchRoute,
	resolveRoute,
	ROUTES,
	routePath,
	validateQuery
} from './routes';

function idOf(method: string, path: string): string | undefined {
	return matchRoute(method, path)?.route.id;
}

describe('route table', () => {
	it('matches every documented route where it is served', () => {
		expect(idOf('GET', '/v2/whoami')).toBe('whoami');
		expect(idOf('GET', '/v2/tickers')).toBe('tickers');
		expect(idOf('GET', '/tickers/quant')).toBe('quantTickers');
		expect(idOf('GET', '/v2/tickers/quant')).toBeUndefined();
		expect(idOf('GET', '/state/categories')).toBe('categories');
		expect(idOf('GET', '/v2/state/categories')).toBeUndefined();
		expect(idOf('GET', '/v2/SPX/classic/full')).toBe('classicChain');
		expect(idOf('GET', '/v2/SPX/classic/gex_zero/majors')).toBe('classicMajors');
		expect(idOf('GET', '/v2/SPX/classic/one/maxchange')).toBe('classicMaxchange');
		expect(idOf('GET', '/v2/ES_SPX/state/onegamma')).toBe('stateSnapshot');
		expect(idOf('GET', '/v2/SPX/state/gex_full/majors')).toBe('stateMajors');
		expect(idOf('GET', '/v2/SPX/state/gamma_zero/majors')).toBeUndefined();
		expect(idOf('GET', '/v2/QQQ/orderflow/orderflow')).toBe('orderflow');
		expect(idOf('GET', '/v2/options/XSP/expiries')).toBe('expiries');
		expect(idOf('GET', '/v2/futures/conversion')).toBe('futuresConversion');
		expect(idOf('GET', '/v2/hist/SPX/classic/gex_full/2026-03-02')).toBe('history');
		expect(idOf('GET', '/v2/hist/eod/SPY')).toBe('eod');
		expect(idOf('GET', '/hist/eod/SPY')).toBe('eod');
		expect(idOf('GET', '/v2/research/SPX/gex_oi')).toBe('research');
		expect(idOf('POST', '/v2/negotiate')).toBe('negotiatePost');
		expect(idOf('GET', '/v2/negotiate')).toBe('negotiateGet');
		expect(idOf('PATCH', '/v2/negotiate')).toBe('negotiatePatch');
	});

	it('canonicalises categories and keeps the raw spelling', () => {
		expect(matchRoute('GET', '/v2/SPX/state/onecharm')?.params).toEqual({
			ticker: 'SPX',
			package: 'state',
			category: 'charm_one',
			rawCategory: 'onecharm'
		});
	});

	it('explains invalid parameters', () => {
		expect(resolveRoute('GET', '/v2/FOO/classic/full')).toMatchObject({
			kind: 'invalid',
			status: 400
		});
		expect(resolveRoute('GET', '/v2/SPX/classic/gamma')).toMatchObject({ kind: 'invalid' });
		expect(resolveRoute('GET', '/v2/SPX/state/volume_zero')).toMatchObject({ kind: 'invalid' });
		expect(resolveRoute('GET', '/v2/hist/SPX/classic/gex_full/2026-02-30')).toMatchObject({
			kind: 'invalid'
		});
		expect(resolveRoute('GET', '/v2/hist/SPX/quant/gex_full/2026-02-03')).toMatchObject({
			kind: 'invalid'
		});
		expect(resolveRoute('GET', '/v2/research/SPX/not_a_metric')).toMatchObject({ kind: 'invalid' });
		// A greek on the GEX summaries: the service's own text (client programs match on it).
		expect(resolveRoute('GET', '/v2/SPX/state/gamma_zero/maxchange')).toMatchObject({
			kind: 'invalid',
			status: 400,
			error: 'Category must be one of gex_full, gex_one or gex_zero'
		});
		expect(resolveRoute('GET', '/v2/SPX/state/onedelta/majors')).toMatchObject({
			error: GEX_ONLY_ERROR
		});
		expect(resolveRoute('GET', '/v2/SPX/state/nonsense/maxchange')).toMatchObject({
			error: "Unknown state category 'nonsense'."
		});
		expect(resolveRoute('GET', '/v2/options/SPXW/expiries')).toMatchObject({ kind: 'invalid' });
	});

	it('separates unknown paths from wrong methods', () => {
		expect(resolveRoute('DELETE', '/v2/negotiate')).toEqual({
			kind: 'method-not-allowed',
			allowed: ['POST', 'GET', 'PATCH']
		});
		expect(resolveRoute('GET', '/v2/nothing/here/at/all/x')).toEqual({ kind: 'not-found' });
		expect(resolveRoute('GET', '/v2/tickers/')).toEqual({ kind: 'not-found' });
		expect(resolveRoute('GET', '/v2/../tickers')).toEqual({ kind: 'not-found' });
		expect(resolveRoute('GET', '/v2')).toEqual({ kind: 'not-found' });
	});

	it('assigns the documented quota pools', () => {
		const pools = Object.fromEntries(ROUTES.map((r) => [r.id, r.quotaPool]));
		expect(pools.classicChain).toBe('api_default');
		expect(pools.stateSnapshot).toBe('api_default');
		expect(pools.orderflow).toBe('api_default');
		expect(pools.classicMajors).toBe('api_majors');
		expect(pools.stateMaxchange).toBe('api_max_change');
		expect(pools.futuresConversion).toBe('api_futures_conversion');
		expect(pools.history).toBe('api_history_cache');
		expect(pools.research).toBe('api_research_command');
		expect(pools.whoami).toBeNull();
	});

	it('builds paths that match back', () => {
		expect(routePath(getRoute('quantTickers'))).toBe('/tickers/quant');
		expect(routePath(getRoute('eod'), { ticker: 'SPY' })).toBe('/v2/hist/eod/SPY');
		expect(routePath(getRoute('stateSnapshot'), { ticker: 'SPX', category: 'gamma_one' })).toBe(
			'/v2/SPX/state/gamma_one'
		);
		expect(() =>
			routePath(getRoute('classicChain'), { ticker: 'SPX', category: 'gamma_one' })
		).toThrow();
		expect(() =>
			routePath(getRoute('classicChain'), { ticker: '../x', category: 'gex_full' })
		).toThrow();
	});

	it('never matches arbitrary paths with unvalidated segments', () => {
		fc.assert(
			fc.property(fc.array(fc.string({ maxLength: 8 }), { maxLength: 6 }), (parts) => {
				const m = matchRoute('GET', `/v2/${parts.join('/')}`);
				if (m?.params.ticker) expect(m.params.ticker).toMatch(/^[A-Za-z0-9_^.]{1,10}$/);
				if (m?.params.date) expect(m.params.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
			})
		);
	});

	it('validates query strings per route', () => {
		const q = (s: string) => new URLSearchParams(s);
		expect(validateQuery(getRoute('classicChain'), q(''))).toEqual({ ok: true });
		expect(validateQuery(getRoute('classicChain'), q('x=1')).ok).toBe(false);
		expect(validateQuery(getRoute('history'), q('noredirect')).ok).toBe(true);
		expect(validateQuery(getRoute('futuresConversion'), q('ticker=SPX&future=ES')).ok).toBe(true);
		expect(validateQuery(getRoute('futuresConversion'), q('ticker=SPX&future=NQ')).ok).toBe(false);
		expect(validateQuery(getRoute('futuresConversion'), q('ticker=SPX')).ok).toBe(false);
		expect(validateQuery(getRoute('research'), q('format=json&view=surface&strikes=20')).ok).toBe(
			true
		);
		expect(validateQuery(getRoute('research'), q('format=gif')).ok).toBe(false);
		expect(validateQuery(getRoute('research'), q('skew_adj=yes')).ok).toBe(false);
	});
});

describe('route table round trips', () => {
	it('every ticker x package x spelling builds a path that matches back canonically', () => {
		for (const ticker of ALL_TICKERS) {
			for (const pkg of PACKAGES) {
				for (const raw of categorySpellings(pkg)) {
					const path = `/v2/${ticker}/${pkg}/${raw}`;
					const m = matchRoute('GET', path);
					expect(m?.params, path).toMatchObject({
						ticker,
						package: pkg,
						category: resolveCategory(pkg, raw)
					});
					expect(routePath(m!.route, m!.params)).toBe(path);
				}
			}
		}
	});
});
