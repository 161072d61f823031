/**
 * The embedded service's REST surface over real HTTP against the real simulated market:
 * every operation, the access table (key kind x route -> status), history links and gzip, the
 * EOD zip, research datasets, error shapes. Every JSON answer is validated with the contract
 * module's runtime schemas (see api() in service-support.ts).
 */
import fc from 'fast-check';
import { gunzipSync, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	classicChainSchema,
	greekProfileSchema,
	orderflowSchema
} from '../../src/lib/contract/schemas';
import { safeParse } from '../../src/lib/contract/validate';
import { eodMembers } from '../../src/service/http/eod';
import type { ResearchResult } from '../../src/lib/contract/research';
import type { WhoamiResponse } from '../../src/service/http/whoami';
import { etDate } from '../../src/service/quota/windows';
import {
	api,
	call,
	keysOf,
	startTestService,
	waitForData,
	type KeyKind,
	type TestService
} from './service-support';

// Friday 20 Nov 2026, 10:30 ET: a running session, at real speed.
const START = '2026-11-20T15:30:00Z';
const keys = keysOf();

let t: TestService;
let base: string;
let root: string;
let today: string;

beforeAll(async () => {
	t = await startTestService({ start: START });
	base = t.service.url;
	root = t.service.rootUrl;
	today = etDate(t.service.market.now());
	await waitForData(root, keys.classic);
}, 120_000);

afterAll(async () => {
	await t?.close();
});

describe('public routes', () => {
	it('lists tickers, quant tickers and package categories', async () => {
		const tickers = (await api(base, '/tickers')).json() as { stocks: string[]; indexes: string[] };
		expect(tickers.indexes).toContain('SPX');
		expect(tickers.stocks).toContain('SPY');
		const quant = await api(root, '/tickers/quant');
		expect(quant.status).toBe(200);
		expect((await api(root, '/classic/categories')).json()).toEqual([
			'gex_full',
			'gex_zero',
			'gex_one'
		]);
		expect((await api(root, '/orderflow/categories')).json()).toEqual(['orderflow']);
		expect(((await api(root, '/state/categories')).json() as string[]).length).toBe(13);
	});

	it('serves the root-only routes only at the root', async () => {
		expect((await api(base, '/classic/categories')).status).toBe(404);
		expect((await api(base, '/tickers/quant')).status).toBe(404);
	});

	it('refuses a request without User-Agent on every kind of route with 400', async () => {
		for (const path of [
			'/v2/tickers',
			'/classic/categories',
			'/v2/SPX/classic/full',
			'/v2/whoami',
			'/v2/nope'
		]) {
			const r = await api(root, path, { ua: null, key: keys.quant });
			expect(r.status, path).toBe(400);
			expect((r.json() as { error: string }).error).toMatch(/User-Agent/);
		}
	});

	it('answers unknown routes 404 and wrong methods 405, as JSON errors', async () => {
		expect((await api(root, '/v2/SPX/classic/full/extra', { key: keys.quant })).status).toBe(404);
		const r = await api(base, '/tickers', { method: 'POST' });
		expect(r.status).toBe(405);
		expect(r.headers.allow).toBe('GET');
	});
});

describe('whoami', () => {
	it('describes the account with a masked key and no-store caching', async () => {
		const r = await api(base, '/whoami', { key: keys.state });
		expect(r.status).toBe(200);
		expect(r.headers['cache-control']).toBe('no-store');
		const body = r.json() as WhoamiResponse;
		expect(body._id).toBe('demo-state');
		expect(body.max_level).toBe('state');
		expect(body.api_key.id).toBe(`gexbot_custom_…${keys.state.slice(-4)}`);
		expect(r.text()).not.toContain(keys.state.slice(14, 30));
	});

	it('accepts a research key and answers 401 / 403 for unusable keys', async () => {
		expect((await api(base, '/whoami', { key: keys.research })).status).toBe(200);
		const missing = await api(base, '/whoami');
		expect(missing.status).toBe(401);
		expect(missing.headers['cache-control']).toBe('no-store');
		for (const k of ['unknown', 'expired', 'revoked'] as const) {
			expect((await api(base, '/whoami', { key: keys[k] })).status, k).toBe(401);
		}
		expect((await api(base, '/whoami', { key: keys.suspended })).status).toBe(403);
		const xml = await api(base, '/whoami', { key: keys.state, headers: { Accept: 'text/xml' } });
		expect(xml.status).toBe(400);
	});
});

describe('snapshots', () => {
	it('serves classic, state and orderflow payloads valid by the contract schemas', async () => {
		for (const path of [
			'/SPX/classic/gex_full',
			'/SPX/classic/zero',
			'/UNG/classic/one',
			'/SPX/state/gex_full'
		]) {
			const r = await api(base, path, { key: keys.orderflow });
			expect(r.status, path).toBe(200);
			expect(safeParse(classicChainSchema, r.json()).ok).toBe(true);
		}
		for (const path of [
			'/SPX/state/gamma',
			'/SPX/state/delta_one',
			'/SPX/state/onevanna',
			'/SPX/state/charm_zero'
		]) {
			const r = await api(base, path, { key: keys.orderflow });
			expect(r.status, path).toBe(200);
			expect(safeParse(greekProfileSchema, r.json()).ok).toBe(true);
		}
		const flow = await api(base, '/SPX/orderflow/orderflow', { key: keys.orderflow });
		expect(safeParse(orderflowSchema, flow.json()).ok).toBe(true);
		const majors = (await api(base, '/SPX/classic/full/majors', { key: keys.classic })).json();
		expect(Object.keys(majors as object)).toEqual(
			expect.arrayContaining([
				'zero_gamma',
				'mpos_vol',
				'mneg_oi',
				'net_gex_vol',
				'timestamp',
				'ticker',
				'spot'
			])
		);
		const max = (await api(base, '/SPX/state/gex_zero/maxchange', { key: keys.state })).json();
		expect(Object.keys(max as object)).toEqual(
			expect.arrayContaining(['current', 'one', 'five', 'ten', 'fifteen', 'thirty'])
		);
	});

	it('serves majors that agree with the chain computed in the same second', async () => {
		let checked = 0;
		for (let i = 0; i < 20 && checked < 3; i++) {
			const [chain, majors] = await Promise.all([
				call(`${base}/SPX/classic/gex_full`, { key: keys.classic }),
				call(`${base}/SPX/classic/gex_full/majors`, { key: keys.classic })
			]);
			const c = chain.json() as Record<string, number>;
			const m = majors.json() as Record<string, number>;
			if (c.timestamp !== m.timestamp) continue;
			expect([m.zero_gamma, m.mpos_vol, m.mpos_oi, m.mneg_vol, m.mneg_oi]).toEqual([
				c.zero_gamma,
				c.major_pos_vol,
				c.major_pos_oi,
				c.major_neg_vol,
				c.major_neg_oi
			]);
			expect([m.net_gex_vol, m.net_gex_oi, m.spot]).toEqual([c.sum_gex_vol, c.sum_gex_oi, c.spot]);
			checked++;
		}
		expect(checked).toBeGreaterThan(0);
	});

	it('refuses unknown tickers, categories and WebSocket-only tickers with 400', async () => {
		for (const path of [
			'/XXXX/classic/full',
			'/SPX/classic/gamma',
			'/SPX/state/volume_zero',
			'/XSP/classic/full',
			'/SPX/state/gamma/majors'
		]) {
			expect((await api(base, path, { key: keys.quant })).status, path).toBe(400);
		}
	});

	it('answers byte-identical bodies within one calculation second', async () => {
		let same = 0;
		for (let i = 0; i < 20 && same < 3; i++) {
			const [a, b] = await Promise.all([
				call(`${base}/SPX/classic/gex_full`, { key: keys.classic }),
				call(`${base}/SPX/classic/gex_full`, { key: keys.classic })
			]);
			const ta = (a.json() as { timestamp: number }).timestamp;
			const tb = (b.json() as { timestamp: number }).timestamp;
			if (ta === tb) {
				expect(a.body.equals(b.body)).toBe(true);
				same++;
			}
		}
		expect(same).toBeGreaterThan(0);
	});
});

describe('quant routes and futures', () => {
	it('lists option expiries for 90 days', async () => {
		const body = (await api(base, '/options/SPX/expiries', { key: keys.quant })).json() as {
			start_date: string;
			end_date: string;
			expiries: string[];
		};
		expect(body.start_date).toBe(today);
		expect(body.expiries[0] >= today).toBe(true);
		expect(body.expiries.every((d) => d <= body.end_date)).toBe(true);
	});

	it('serves the futures conversion pairs and refuses others', async () => {
		const r = await api(base, '/futures/conversion?ticker=SPX&future=ES', { key: keys.classic });
		expect(r.status).toBe(200);
		expect(
			(await api(base, '/futures/conversion?ticker=SPX&future=NQ', { key: keys.classic })).status
		).toBe(400);
		expect((await api(base, '/futures/conversion?ticker=SPX', { key: keys.classic })).status).toBe(
			400
		);
	});
});

describe('history', () => {
	const histPath = () => `/hist/UNG/classic/gex_full/${today}`;

	it('redirects to a signed download, or returns the url with noredirect', async () => {
		const r = await api(base, histPath(), { key: keys.quant });
		expect(r.status).toBe(302);
		const location = String(r.headers.location);
		expect(location).toMatch(
			/^http:\/\/127\.0\.0\.1:\d+\/download\/hist\/UNG\/classic\/gex_full\//
		);
		const plain = await call(location, { ua: null });
		expect(plain.status).toBe(200);
		const day = plain.json() as unknown[];
		expect(day.length).toBeGreaterThan(0);
		for (const snap of day.slice(0, 5)) expect(safeParse(classicChainSchema, snap).ok).toBe(true);

		const gz = await call(location, { headers: { 'Accept-Encoding': 'gzip' } });
		expect(gz.headers['content-encoding']).toBe('gzip');
		expect(JSON.parse(Buffer.from(gunzipSync(gz.body)).toString()).length).toBeGreaterThan(0);

		const noredirect = await api(base, `${histPath()}?noredirect`, { key: keys.quant });
		expect(noredirect.status).toBe(200);
		expect((noredirect.json() as { url: string }).url).toContain('/download/hist/UNG/');
	});

	it('refuses tampered links, dates outside 90 days and future dates', async () => {
		const { url } = (await api(base, `${histPath()}?noredirect`, { key: keys.quant })).json() as {
			url: string;
		};
		expect((await call(url.replace('gex_full', 'gex_zero'))).status).toBe(403);
		expect((await call(url.replace(/signature=[^&]+/, 'signature=' + 'A'.repeat(43)))).status).toBe(
			403
		);
		expect(
			(await api(base, '/hist/UNG/classic/gex_full/2026-01-02?noredirect', { key: keys.quant }))
				.status
		).toBe(400);
		expect(
			(await api(base, '/hist/UNG/classic/gex_full/2027-01-04?noredirect', { key: keys.quant }))
				.status
		).toBe(400);
		expect(
			(await api(base, '/hist/UNG/classic/gex_full/2026-02-30', { key: keys.quant })).status
		).toBe(400);
	});
});

describe('end-of-day report', () => {
	it('is a zip of the 15 gzip JSON members of the last completed session', async () => {
		const r = await call(`${base}/hist/eod/UNG`, { key: keys.classic });
		expect(r.status, r.text().slice(0, 200)).toBe(200);
		expect(r.headers['content-type']).toBe('application/zip');
		const date = t.service.market.lastCompletedSession();
		expect(r.headers['content-disposition']).toBe(
			`attachment; filename="eod_report_UNG_${date}.zip"`
		);
		const files = unzipSync(new Uint8Array(r.body));
		expect(Object.keys(files).sort()).toEqual(eodMembers('UNG', date).sort());
		expect(Object.keys(files)).toContain(`UNG/state/charm_one/${date}_UNG_state_charm_one.json.gz`);
		const member = JSON.parse(
			Buffer.from(
				gunzipSync(files[`UNG/classic/gex_full/${date}_UNG_classic_gex_full.json.gz`])
			).toString()
		);
		expect(member.length).toBeGreaterThan(1000);
		expect(safeParse(classicChainSchema, member[0]).ok).toBe(true);
		// Also served without /v2, byte for byte.
		const rootReply = await call(`${root}/hist/eod/UNG`, { key: keys.quant });
		expect(rootReply.body.equals(r.body)).toBe(true);
	}, 300_000);
});

describe('research', () => {
	it('matches routes on the decoded path, as the upstream does (%5E is ^)', async () => {
		const escaped = await api(base, '/research/%53PX/iv_mid?strikes=3&end_dte=10', {
			key: keys.research
		});
		expect(escaped.status).toBe(200);
		const caret = await api(base, '/research/%5ESPX/iv_mid', { key: keys.research });
		expect(caret.status).not.toBe(500);
		expect([200, 404]).toContain(caret.status);
		const malformed = await api(base, '/research/%E0%A4%A/iv_mid', { key: keys.research });
		expect(malformed.status).toBe(400);
	});

	it('serves json datasets and grids, csv, and 415 for image formats', async () => {
		const table = (
			await api(base, '/research/SPX/iv_mid?strikes=3&end_dte=10', { key: keys.research })
		).json() as ResearchResult;
		expect(table.view).toBe('table');
		expect(table.rows!.length).toBeGreaterThan(0);
		for (const row of table.rows!) expect(row.value).toBeGreaterThan(0);
		const surface = (
			await api(base, '/research/SPX/iv_mid?view=surface&end_dte=30', { key: keys.research })
		).json() as ResearchResult;
		expect(surface.surface!.values.length).toBe(surface.surface!.expiries.length);
		const term = (
			await api(base, '/research/SPX/gex_oi?view=term&contract_filter=calls', {
				key: keys.research
			})
		).json() as ResearchResult;
		expect(
			term.term!.every((p: { type: string; value: number }) => p.type === 'call' && p.value >= 0)
		).toBe(true);
		const skew = (
			await api(base, '/research/SPX/vanna_ex_oi_skew_adj?view=skew&expiration_filter=0dte', {
				key: keys.research
			})
		).json() as ResearchResult;
		expect(Array.isArray(skew.series)).toBe(true);
		const flip = (
			await api(base, '/research/SPX/gamma_flip', { key: keys.research })
		).json() as ResearchResult;
		expect(flip.view).toBe('level');
		const csv = await call(`${base}/research/SPX/open_interest?format=csv&strikes=2`, {
			key: keys.research
		});
		expect(csv.headers['content-type']).toMatch(/^text\/csv/);
		expect(csv.text().split('\r\n')[0]).toBe('expiry,dte,strike,type,value');
		const png = await api(base, '/research/SPX/gex_oi?format=png', { key: keys.research });
		expect(png.status).toBe(415);
		expect((await api(base, '/research/SPX/not_a_metric', { key: keys.research })).status).toBe(
			400
		);
		expect(
			(await api(base, '/research/SPX/gex_oi?colour=red', { key: keys.research })).status
		).toBe(400);
	});
});

describe('access table: key kind x route -> status', () => {
	type Row = [string, string, Partial<Record<KeyKind | 'none', number>> & { default: number }];
	const paid = {
		research: 403,
		unknown: 401,
		expired: 401,
		revoked: 401,
		suspended: 403,
		none: 400
	};
	const rows: Row[] = [
		[
			'whoami',
			'/v2/whoami',
			{ default: 200, none: 401, unknown: 401, expired: 401, revoked: 401, suspended: 403 }
		],
		['tickers', '/v2/tickers', { default: 200 }],
		['quant tickers', '/tickers/quant', { default: 200 }],
		['categories', '/state/categories', { default: 200 }],
		['classic chain', '/v2/SPX/classic/gex_full', { default: 200, ...paid }],
		['classic majors', '/v2/SPX/classic/full/majors', { default: 200, ...paid }],
		['classic maxchange', '/v2/SPX/classic/zero/maxchange', { default: 200, ...paid }],
		['state gex', '/v2/SPX/state/gex_one', { default: 200, classic: 403, ...paid }],
		['state greek', '/v2/SPX/state/gamma', { default: 200, classic: 403, ...paid }],
		[
			'orderflow',
			'/v2/SPX/orderflow/orderflow',
			{ default: 200, classic: 403, state: 403, ...paid }
		],
		['futures', '/v2/futures/conversion?ticker=SPX&future=ES', { default: 200, ...paid }],
		['eod', '/v2/hist/eod/UNG', { default: 200, ...paid }],
		['expiries', '/v2/options/UNG/expiries', { default: 403, quant: 200, platform: 200, ...paid }],
		[
			'history',
			'/v2/hist/UNG/classic/gex_full/TODAY?noredirect',
			{ default: 403, quant: 200, platform: 200, ...paid }
		],
		[
			'research',
			'/v2/research/UNG/gex_oi?strikes=1',
			{
				default: 403,
				research: 200,
				unknown: 401,
				expired: 401,
				revoked: 401,
				suspended: 403,
				none: 400
			}
		]
	];
	const kinds: (KeyKind | 'none')[] = [
		'none',
		'classic',
		'state',
		'orderflow',
		'quant',
		'platform',
		'research',
		'unknown',
		'expired',
		'revoked',
		'suspended'
	];

	it('matches the seed rules for every pair', async () => {
		const failures: string[] = [];
		for (const [name, path, expected] of rows) {
			for (const kind of kinds) {
				const want = expected[kind] ?? expected.default;
				const r = await api(root, path.replace('TODAY', today), {
					key: kind === 'none' ? undefined : keys[kind]
				});
				if (r.status !== want)
					failures.push(`${name} x ${kind}: ${r.status} (want ${want}) ${r.text().slice(0, 100)}`);
			}
		}
		expect(failures).toEqual([]);
	}, 120_000);
});

describe('robustness', () => {
	it('answers any path with a documented status and a JSON error body, never a 500', async () => {
		const segment = fc.oneof(
			fc.constantFrom(
				'v2',
				'SPX',
				'UNG',
				'XSP',
				'classic',
				'state',
				'orderflow',
				'full',
				'gamma',
				'onegamma',
				'majors',
				'maxchange',
				'hist',
				'eod',
				'research',
				'options',
				'expiries',
				'futures',
				'conversion',
				'whoami',
				'tickers',
				'quant',
				'categories',
				'2026-11-19',
				'gex_oi',
				'..',
				'%2F',
				''
			),
			fc.string({ minLength: 1, maxLength: 8 }).map((s) => encodeURIComponent(s))
		);
		await fc.assert(
			fc.asyncProperty(
				fc.array(segment, { minLength: 1, maxLength: 6 }),
				fc.constantFrom(...(['none', 'classic', 'quant', 'research'] as const)),
				async (parts, kind) => {
					const r = await api(root, `/${parts.join('/')}`, {
						key: kind === 'none' ? undefined : keys[kind]
					});
					expect([200, 302, 400, 401, 403, 404, 405, 415, 503]).toContain(r.status);
					if (r.status >= 400) expect(typeof (r.json() as { error: unknown }).error).toBe('string');
				}
			),
			{ numRuns: 150 }
		);
	}, 120_000);
});
