/**
 * The platform cores of integrations/, compiled here and run against a live dashboard (the
 * levels feed rig): NinjaTrader 8's C# core with Mono's mcs (under de-DE, a comma-decimal
 * culture) and Sierra Chart's C++ core with g++ (GET of the CSV with ?token=, as
 * sc.MakeHTTPRequest does). Each must draw the feed's levels with dot-decimal prices, say 401 for
 * a wrong or revoked token, and say "not updating" once the upstream stops. The compilers are
 * installed by .ci/run (mono-mcs, libmono-system-net-http4.0-cil, libmono-i18n4.0-all, g++).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LevelsDocument } from '../../src/lib/levels/document';
import { root } from './dashboard-support';
import { feedGet, firstValue, startFeedRig, type FeedRig } from './levels-feed.support';

let rig: FeedRig;
let token: string;
const work = mkdtempSync(join(tmpdir(), 'gexdeck-integrations-'));
const csExe = join(work, 'check.exe');
const cppExe = join(work, 'sierra_check');

function tokenFile(t: string): string {
	const path = join(work, `token-${Math.random().toString(36).slice(2)}.txt`);
	writeFileSync(path, `${t}\n`);
	return path;
}

function ninja(t: string, culture = 'de-DE'): Record<string, string> {
	const out = execFileSync('mono', [csExe, culture, rig.dash.base, 'IWM', tokenFile(t)], {
		encoding: 'utf8',
		timeout: 60_000
	});
	return Object.fromEntries(
		out
			.trim()
			.split('\n')
			.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)])
	);
}

function sierra(t: string): Record<string, string> {
	const out = execFileSync(cppExe, [rig.dash.base, 'IWM', t], {
		encoding: 'utf8',
		timeout: 60_000
	});
	return Object.fromEntries(
		out
			.trim()
			.split('\n')
			.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)])
	);
}

/** Every non-null level of the feed's JSON is drawn, at (about) the same dot-decimal price. */
async function expectSameLevels(drawn: Record<string, string>) {
	const doc = JSON.parse(
		(await feedGet(rig.dash.base, '/feed/v1/levels/IWM', token)).text
	) as LevelsDocument;
	for (const l of doc.levels) {
		if (l.price === null) {
			expect(drawn[l.id]).toBe(`null:${l.reason}`);
			continue;
		}
		expect(drawn[l.id]).toMatch(/^\d+(\.\d+)?$/);
		expect(Math.abs(Number(drawn[l.id]) - l.price) / l.price).toBeLessThan(0.02);
	}
}

beforeAll(async () => {
	const nt = join(root, 'integrations', 'ninjatrader8', 'GexdeckLevelsCore.cs');
	const driver = join(root, 'tests', 'integration', 'integrations', 'LevelsCheck.cs');
	execFileSync('mcs', ['-langversion:7', '-r:System.Net.Http.dll', `-out:${csExe}`, nt, driver]);
	execFileSync('g++', [
		'-std=c++11',
		'-Wall',
		'-Werror',
		`-I${join(root, 'integrations', 'sierrachart')}`,
		'-o',
		cppExe,
		join(root, 'tests', 'integration', 'integrations', 'sierra_check.cpp')
	]);
	rig = await startFeedRig();
	token = await rig.token('platforms');
	expect((await firstValue(rig.dash.base, token)).status).toBe(200);
}, 180_000);

afterAll(async () => {
	await rig?.close();
});

describe('NinjaTrader 8 core (C#, Mono)', () => {
	it('draws the feed under de-DE with dot-decimal prices, live', async () => {
		const drawn = ninja(token);
		expect(drawn.culture).toBe('de-DE sample=7567,8');
		expect(drawn.http).toBe('200');
		expect(drawn.stale).toBe('0');
		expect(drawn.status).toMatch(/^gexdeck: live, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d ET$/);
		await expectSameLevels(drawn);
	}, 60_000);

	it('a wrong token and a revoked one say 401 instead of drawing', async () => {
		expect(ninja('gxd_wrong')).toMatchObject({
			http: '401',
			status: expect.stringMatching(/token refused \(401\)/)
		});
		const t = await rig.token('revoked soon');
		expect(ninja(t).http).toBe('200');
		execFileSync(
			process.execPath,
			['--import', 'tsx', join(root, 'src/lib/server/tokens/cli.ts'), 'revoke', 'revoked soon'],
			{
				env: { ...process.env, GEXDECK_DATA_DIR: rig.dataDir }
			}
		);
		expect(ninja(t).http).toBe('401');
	}, 60_000);
});

describe('Sierra Chart core (C++, g++)', () => {
	it('GETs the CSV with ?token= and parses every level', async () => {
		const drawn = sierra(token);
		expect(drawn.http).toBe('200');
		expect(drawn.stale).toBe('0');
		await expectSameLevels(drawn);
	}, 60_000);

	it('a wrong token answers 401, which the core reports instead of levels', () => {
		expect(sierra('gxd_wrong')).toMatchObject({
			http: '401',
			error: expect.stringMatching(/not the gexdeck levels CSV/)
		});
	});
});

describe('when the upstream stops', () => {
	it('both cores report stale levels ("not updating since")', async () => {
		await rig.svc.close();
		const deadline = Date.now() + 40_000;
		let drawn = ninja(token);
		while (drawn.stale !== '1' && Date.now() < deadline) {
			await new Promise((r) => setTimeout(r, 1000));
			drawn = ninja(token);
		}
		expect(drawn.stale).toBe('1');
		expect(drawn.status).toMatch(/^gexdeck: never updated|^gexdeck: not updating since/);
		expect(sierra(token).stale).toBe('1');
	}, 60_000);
});
