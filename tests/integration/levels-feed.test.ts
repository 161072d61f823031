/**
 * The levels feed over real sockets: the built dashboard (password mode, Quant key) against the
 * embedded service and its hubs through a counting proxy. IWM is on nobody's list (the recorder
 * holds SPX, NDX, RUT, SPY, QQQ): the feed's first request makes the feed holder hold it. Tokens
 * are the only key to /feed and open nothing else; the formats parse; a CLI revoke answers 401 at
 * once; the rate limit answers 429; no token reaches the log; 20 platforms polling every second
 * for a minute cost no upstream call; a stopped upstream turns the levels stale.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEVELS_SCHEMA, type LevelsDocument } from '../../src/lib/levels/document';
import { BOOKMAP_COLUMNS, CSV_COLUMNS } from '../../src/lib/levels/formats';
import { parsePaste } from '../../src/lib/levels/pasteString';
import { rawRequest, root, runToExit, upgradeStatus } from './dashboard-support';
import { feedGet, firstValue, startFeedRig, type FeedRig } from './levels-feed.support';

let rig: FeedRig;
let token: string;
const secrets: string[] = [];

beforeAll(async () => {
	rig = await startFeedRig();
	token = await rig.token('main');
	secrets.push(token);
}, 120_000);

afterAll(async () => {
	await rig?.close();
});

describe('tokens', () => {
	it('the feed always needs a token; the first request starts holding and answers 503 until a value', async () => {
		const none = await feedGet(rig.dash.base, '/feed/v1/levels/IWM');
		expect(none.status).toBe(401);
		expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
		expect((await feedGet(rig.dash.base, '/feed/v1/levels/IWM', 'gxd_wrong')).status).toBe(401);
		const first = await feedGet(rig.dash.base, '/feed/v1/levels/IWM', token);
		expect(first.status).toBe(503);
		expect(Number(first.headers.get('retry-after'))).toBeGreaterThan(0);
		expect(JSON.parse(first.text).error).toMatch(/holding IWM gex_full/);
		expect((await firstValue(rig.dash.base, token)).status).toBe(200);
	}, 90_000);

	it('a token opens no page, no /api, no /stream, no form; the Host allowlist still holds', async () => {
		const port = rig.dash.port;
		const bearer = { authorization: `Bearer ${token}` };
		expect((await rawRequest(port, 'GET', '/api/tickers', bearer)).status).toBe(401);
		expect((await rawRequest(port, 'GET', `/api/tickers?token=${token}`)).status).toBe(401);
		expect((await rawRequest(port, 'GET', `/account?token=${token}`, bearer)).status).toBe(303);
		expect((await upgradeStatus(port, `/stream?token=${token}`, bearer)).status).toBe(401);
		const form = await rawRequest(
			port,
			'POST',
			`/account?/saveKeys&token=${token}`,
			{ ...bearer, 'content-type': 'application/x-www-form-urlencoded' },
			'apiKey=x'
		);
		expect([401, 403]).toContain(form.status);
		const misdirected = await rawRequest(port, 'GET', `/feed/v1/levels/IWM?token=${token}`, {
			host: 'evil.example'
		});
		expect(misdirected.status).toBe(421);
		expect((await rawRequest(port, 'GET', `/feed/v1/levels/IWM?token=${token}`)).status).toBe(200);
	});

	it('too many requests from one token: 429 with Retry-After', async () => {
		const t = await rig.token('burst');
		secrets.push(t);
		const answers = await Promise.all(
			Array.from({ length: 15 }, () => feedGet(rig.dash.base, '/feed/v1/levels/IWM.csv', t))
		);
		const limited = answers.filter((a) => a.status === 429);
		expect(limited.length).toBeGreaterThan(0);
		expect(Number(limited[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
	});

	it('npm run token: create, list, revoke; a revoked token answers 401 at once', async () => {
		const env = { GEXDECK_DATA_DIR: rig.dataDir };
		const cli = (...args: string[]) =>
			runToExit(['--import', 'tsx', join(root, 'src/lib/server/tokens/cli.ts'), ...args], env);
		const created = await cli('create', 'sierra', 'desk');
		expect(created.code).toBe(0);
		const t = created.output.trim().split('\n').pop()!;
		secrets.push(t);
		expect((await feedGet(rig.dash.base, '/feed/v1/levels/IWM.csv', t)).status).toBe(200);
		const list = await cli('list');
		expect(list.output).toMatch(/sierra desk .*last used=20\d\d-.* from 127\.0\.0\.1/s);
		expect((await cli('revoke', 'sierra', 'desk')).code).toBe(0);
		expect((await feedGet(rig.dash.base, '/feed/v1/levels/IWM.csv', t)).status).toBe(401);
	}, 60_000);
});

describe('formats', () => {
	it('JSON follows the schema documented in the README', async () => {
		const r = await firstValue(rig.dash.base, token, '/feed/v1/levels/IWM?strikes=5');
		expect(r.headers.get('content-type')).toMatch(/^application\/json/);
		const doc = JSON.parse(r.text) as LevelsDocument;
		// The README's field table is the schema: every documented field is sent, nothing else.
		const readme = readFileSync(join(root, 'README.md'), 'utf8');
		const section = readme.slice(
			readme.indexOf('<!-- levels-schema -->'),
			readme.indexOf('<!-- /levels-schema -->')
		);
		const documented = [...section.matchAll(/^\| `([a-z_]+)` +\|/gm)].map((m) => m[1]);
		expect(documented.length).toBeGreaterThan(10);
		expect(Object.keys(doc).sort()).toEqual(documented.filter((k) => k !== 'future').sort());
		expect(doc).toMatchObject({
			schema: LEVELS_SCHEMA,
			ticker: 'IWM',
			category: 'gex_full',
			source: 'stream'
		});
		expect(doc.age_seconds).toBeLessThan(doc.stale_after_seconds);
		expect(doc.stale).toBe(false);
		expect(doc.as_of.et).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d ET$/);
		expect(doc.strikes).toHaveLength(5);
		for (const l of doc.levels) expect(l.price === null).toBe(typeof l.reason === 'string');
		expect(doc.max_change.map((m) => m.window)).toEqual([
			'current',
			'1m',
			'5m',
			'10m',
			'15m',
			'30m'
		]);
	}, 90_000);

	it('future=RTY converts on the tick grid and reports its basis', async () => {
		const r = await feedGet(rig.dash.base, '/feed/v1/levels/IWM?future=RTY', token);
		expect(r.status).toBe(200);
		const doc = JSON.parse(r.text) as LevelsDocument;
		expect(doc.future).toMatchObject({ root: 'RTY', tick: 0.1, multiplier: expect.any(Number) });
		expect(doc.future!.age_seconds).toBeLessThan(60);
		expect(doc.price_of).toBe(doc.future!.contract);
		for (const l of doc.levels) {
			if (l.price !== null)
				expect(l.price.toFixed(1)).toBe(String(l.price).replace(/^(\d+)$/, '$1.0'));
		}
		expect((await feedGet(rig.dash.base, '/feed/v1/levels/IWM?future=NQ', token)).status).toBe(400);
	});

	it('CSV, Bookmap CSV, TradingView string and thinkScript study', async () => {
		const csv = await feedGet(rig.dash.base, '/feed/v1/levels/IWM.csv', token);
		expect(csv.text.split('\r\n')[0]).toBe(CSV_COLUMNS.join(','));
		const bookmap = await feedGet(rig.dash.base, '/feed/v1/levels/IWM.csv?style=bookmap', token);
		expect(bookmap.text.split('\r\n')[0]).toBe(BOOKMAP_COLUMNS.join(','));
		expect(bookmap.text).toMatch(/^IWM,\d+(\.\d+)?,Zero Gamma,/m);
		const tv = await feedGet(rig.dash.base, '/feed/v1/levels/IWM.txt?style=tradingview', token);
		const parsed = parsePaste(tv.text.trim());
		expect(parsed.ok && parsed.value.pairs.length).toBeGreaterThan(3);
		const tos = await feedGet(rig.dash.base, '/feed/v1/levels/IWM.txt?style=thinkscript', token);
		expect(tos.text).toMatch(/^plot MajorPosVol = \d+(\.\d+)?;$/m);
		expect((await feedGet(rig.dash.base, '/feed/v1/levels/IWM.txt', token)).status).toBe(400);
	});
});

describe('logs', () => {
	it('no token ever reaches the dashboard log (refusals are logged with the URL scrubbed)', async () => {
		await feedGet(rig.dash.base, `/feed/v1/levels/IWM?token=gxd_notarealtoken123&x=1`);
		await new Promise((r) => setTimeout(r, 300));
		const out = rig.dash.output();
		expect(out).toContain('token=[redacted]');
		for (const s of [...secrets, 'gxd_notarealtoken123']) expect(out).not.toContain(s.slice(4));
	});
});

describe('no extra quota', () => {
	it('20 platforms polling every second for a minute add no upstream call', async () => {
		const tokens = await Promise.all(
			Array.from({ length: 20 }, (_, i) => rig.token(`client ${i}`))
		);
		secrets.push(...tokens);
		await firstValue(rig.dash.base, tokens[0]);
		const before = new Map(rig.calls);
		const ages: number[] = [];
		let ok = 0;
		const until = Date.now() + 60_000;
		await Promise.all(
			tokens.map(async (t, i) => {
				await new Promise((r) => setTimeout(r, i * 50));
				while (Date.now() < until) {
					const r = await feedGet(rig.dash.base, '/feed/v1/levels/IWM', t);
					if (r.status === 200) {
						ok++;
						ages.push((JSON.parse(r.text) as LevelsDocument).age_seconds);
					}
					await new Promise((res) => setTimeout(res, 1000));
				}
			})
		);
		const added = [...rig.calls].filter(([path, n]) => n !== (before.get(path) ?? 0));
		expect(added).toEqual([]);
		expect(ok).toBeGreaterThan(20 * 50);
		// The answers were live all along: the held stream kept them fresh.
		expect(Math.max(...ages)).toBeLessThan(10);
	}, 120_000);
});

describe('staleness', () => {
	it('a stopped upstream turns the levels stale instead of serving them as live', async () => {
		await rig.svc.close();
		const deadline = Date.now() + 40_000;
		let doc: LevelsDocument | undefined;
		while (Date.now() < deadline) {
			const r = await feedGet(rig.dash.base, '/feed/v1/levels/IWM', token);
			doc = JSON.parse(r.text) as LevelsDocument;
			if (doc.stale) break;
			await new Promise((res) => setTimeout(res, 1000));
		}
		expect(doc).toMatchObject({ stale: true, stale_reason: expect.any(String) });
	}, 60_000);
});
