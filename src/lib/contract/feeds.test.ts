/**
 * A feed's names (group, REST route, recording stream) and the reverse lookups agree for every
 * package and category, including tickers with an underscore (ES_SPX) and route aliases.
 */
import { describe, expect, it } from 'vitest';
import { PACKAGE_CATEGORIES, PACKAGES } from './categories';
import {
	feedGroup,
	feedOf,
	feedOfGroup,
	feedOfRoute,
	feedOfStream,
	feedRoute,
	feedStream,
	groupOfStream,
	spotGroupOf,
	streamOfGroup
} from './feeds';
import { parseGroup } from './hubs';

describe('feed names', () => {
	it('names SPX classic gex_full', () => {
		const f = feedOf('SPX', 'classic', 'gex_full');
		expect(feedGroup(f)).toBe('SPX_classic_gex_full');
		expect(feedRoute(f)).toBe('SPX/classic/gex_full');
		expect(feedStream(f)).toBe('classic_gex_full');
		expect(spotGroupOf('SPX')).toBe('SPX_spot');
	});

	it('every package and category round-trips through group, route and stream', () => {
		for (const ticker of ['SPX', 'ES_SPX']) {
			for (const pkg of PACKAGES) {
				for (const category of PACKAGE_CATEGORIES[pkg]) {
					const f = feedOf(ticker, pkg, category);
					expect(parseGroup(feedGroup(f)).ok).toBe(true);
					expect(feedOfGroup(feedGroup(f))).toEqual(f);
					expect(feedOfStream(ticker, feedStream(f))).toEqual(f);
					expect(streamOfGroup(feedGroup(f))).toEqual({ ticker, stream: feedStream(f) });
					expect(groupOfStream(ticker, feedStream(f))).toBe(feedGroup(f));
					if (category.startsWith('volume')) continue; // stream-only (no REST route)
					expect(feedOfRoute(feedRoute(f))).toEqual(f);
				}
			}
		}
	});

	it('reads route aliases and refuses what is no feed', () => {
		expect(feedOfRoute('SPX/classic/full')).toEqual(feedOf('SPX', 'classic', 'gex_full'));
		expect(feedOfRoute('SPX/state/onegamma')).toEqual(feedOf('SPX', 'state', 'gamma_one'));
		expect(feedOfRoute('SPX/classic/gex_full/majors')).toBeUndefined();
		expect(feedOfRoute('NOPE/classic/gex_full')).toBeUndefined();
		expect(feedOfGroup('SPX_spot')).toBeUndefined();
		expect(feedOfGroup('SPX_classic_gex_20260717')).toBeUndefined();
		expect(feedOfGroup('SPX_classic_delta_zero')).toBeUndefined();
		expect(feedOfStream('SPX', 'spot')).toBeUndefined();
		expect(feedOfStream('SPX', 'classic_delta_zero')).toBeUndefined();
	});

	it('spot and expiry groups have recording streams too', () => {
		expect(streamOfGroup('SPX_spot')).toEqual({ ticker: 'SPX', stream: 'spot' });
		expect(streamOfGroup('ES_SPX_spot')).toEqual({ ticker: 'ES_SPX', stream: 'spot' });
		expect(streamOfGroup('SPX_classic_gex_20260717')).toEqual({
			ticker: 'SPX',
			stream: 'classic_gex_20260717'
		});
		expect(groupOfStream('SPX', 'spot')).toBe('SPX_spot');
		expect(streamOfGroup('nonsense')).toBeUndefined();
	});
});
