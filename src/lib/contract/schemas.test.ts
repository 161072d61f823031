import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { categoriesResponse } from './categories';
import { documentedChain, sampleGreekProfile } from './fixtures.test-support';
import { ORDERFLOW_REST_NAMES } from './orderflowFields';
import {
	classicChainSchema,
	futuresConversionSchema,
	greekProfileSchema,
	negotiateResponseSchema,
	orderflowSchema,
	patchResponseSchema,
	responseSchema,
	whoamiSchema
} from './schemas';
import { quantTickersResponse, tickersResponse } from './tickers';
import { parseWith, safeParse, SchemaError, type Schema } from './validate';

const chainFixture = documentedChain();

describe('response schemas', () => {
	it('accepts the documented classic chain and drops unknown members', () => {
		const parsed = parseWith(classicChainSchema, { ...chainFixture, extra: 1 });
		expect(parsed.strikes[0][3]).toHaveLength(5);
		expect('extra' in parsed).toBe(false);
	});

	it('names the path of the first mismatch', () => {
		const bad = structuredClone(chainFixture) as unknown as { strikes: unknown[][] };
		bad.strikes[0][1] = 'x';
		const r = safeParse(classicChainSchema, bad);
		expect(r).toEqual({
			ok: false,
			path: '$.strikes[0][1]',
			message: 'expected a finite number, got string'
		});
		expect(() => parseWith(classicChainSchema, { ...chainFixture, spot: undefined })).toThrow(
			SchemaError
		);
		expect(safeParse(classicChainSchema, { ...chainFixture, spot: Number.NaN })).toMatchObject({
			path: '$.spot'
		});
	});

	it('validates the greek profile rows', () => {
		const profile = sampleGreekProfile();
		expect(safeParse(greekProfileSchema, profile).ok).toBe(true);
		profile.mini_contracts[0].pop();
		expect(safeParse(greekProfileSchema, profile)).toMatchObject({
			ok: false,
			path: '$.mini_contracts[0]'
		});
	});

	it('requires every observed orderflow field', () => {
		const body: Record<string, unknown> = { timestamp: 1, ticker: 'SPY', spot: 600 };
		for (const n of ORDERFLOW_REST_NAMES) body[n] = 1.5;
		expect(safeParse(orderflowSchema, body).ok).toBe(true);
		delete body.one_cvroflow;
		expect(safeParse(orderflowSchema, body)).toMatchObject({
			ok: false,
			path: '$.one_cvroflow',
			message: 'missing'
		});
	});

	it('accepts the contract module’s own public bodies', () => {
		expect(safeParse(responseSchema('tickers')!, tickersResponse()).ok).toBe(true);
		expect(safeParse(responseSchema('quantTickers')!, quantTickersResponse()).ok).toBe(true);
		expect(safeParse(responseSchema('categories')!, categoriesResponse('state')).ok).toBe(true);
		expect(safeParse(responseSchema('categories')!, ['bogus']).ok).toBe(false);
	});

	it('checks negotiate, patch, futures and whoami bodies', () => {
		expect(
			safeParse(negotiateResponseSchema, {
				websocket_urls: { v2_classic: 'wss://h/client/hubs/v2_classic?access_token=x' }
			}).ok
		).toBe(true);
		expect(safeParse(negotiateResponseSchema, { websocket_urls: { classic: 'wss://h' } }).ok).toBe(
			false
		);
		expect(safeParse(patchResponseSchema, { updated_groups: 6, hubs: { v2_classic: 2 } }).ok).toBe(
			true
		);
		expect(
			safeParse(futuresConversionSchema, {
				future_contract: 'ESU6',
				multiplier: 1,
				additive: 39.62
			}).ok
		).toBe(true);
		const whoami = {
			_id: 'acct-1',
			role: 'user',
			level: ['quant'],
			max_level: 'quant',
			addons: [],
			entitlements: {
				gexbot: { level: 'quant', addons: [] },
				other: { active: false, tier: null }
			},
			permissions: ['api_rest_access'],
			account: {
				commercial: false,
				commercial_delegate: false,
				display_use: false,
				child: false,
				managed: false,
				delegated: false
			},
			api_key: {
				id: 'gexbot_custom_…abcd',
				label: 'x',
				product: 'gexbot',
				integration: 'custom',
				created_at: '2026-01-05T14:00:00Z'
			},
			created: null
		};
		expect(safeParse(whoamiSchema, whoami).ok).toBe(true);
		expect(
			safeParse(whoamiSchema, {
				...whoami,
				api_key: { ...whoami.api_key, id: 'gexbot_custom_secret' }
			}).ok
		).toBe(false);
	});

	it('never throws on arbitrary input', () => {
		fc.assert(
			fc.property(fc.anything(), (x) => {
				for (const s of [
					classicChainSchema,
					greekProfileSchema,
					orderflowSchema,
					whoamiSchema
				] as Schema<unknown>[]) {
					expect(typeof safeParse(s, x).ok).toBe('boolean');
				}
			})
		);
	});
});
