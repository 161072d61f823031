import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chainViewUrl, DEFAULT_CHAIN_VIEW, parseChainView, type ChainViewState } from './chainView';
import { ViewStateError } from './viewState';

const parse = (url: string) => parseChainView(new URL(url, 'http://x').searchParams);

describe('/chain view state', () => {
	it('defaults to the bare URL and round-trips every state', () => {
		expect(chainViewUrl(DEFAULT_CHAIN_VIEW)).toBe('/chain');
		expect(parse('/chain')).toEqual(DEFAULT_CHAIN_VIEW);
		const state = fc.record<ChainViewState>({
			weight: fc.constantFrom('oi', 'vol'),
			sides: fc.constantFrom('net', 'split'),
			greek: fc.constantFrom('dex', 'vanna', 'charm'),
			exNext: fc.boolean(),
			exMonthly: fc.boolean(),
			vol: fc.constantFrom('smile', 'surface'),
			smile: fc.option(
				fc.uniqueArray(fc.constantFrom('2026-11-20', '2026-12-18', '7.0d'), { minLength: 1 }),
				{ nil: null }
			),
			range: fc.constantFrom(0.05, 0.1, 0.2),
			conventions: fc.record({
				preset: fc.constantFrom('calendar', 'perfiliev'),
				rate: fc.double({ min: -1, max: 1, noNaN: true }).map((v) => (Object.is(v, -0) ? 0 : v)),
				dividendYield: fc.constantFrom(0, 0.013, -0.002),
				ivFrom: fc.constantFrom('file', 'mid')
			})
		});
		fc.assert(
			fc.property(state, (s) => {
				expect(parse(chainViewUrl(s))).toEqual(s);
			})
		);
	});

	it('names a bad parameter', () => {
		for (const [url, message] of [
			['/chain?w=gamma', /w must be oi or vol/],
			['/chain?rate=5', /rate must be a number between -1 and 1/],
			['/chain?preset=cboe', /preset must be calendar or perfiliev/],
			['/chain?curves=weekly', /curves/],
			['/chain?range=15', /range/],
			['/chain?smile=a%20b', /smile lists expiries/]
		] as const) {
			expect(() => parse(url)).toThrow(ViewStateError);
			expect(() => parse(url)).toThrow(message);
		}
	});
});
