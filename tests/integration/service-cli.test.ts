/**
 * The service's command line: --print-keys, accounts-file errors naming the offending path, the
 * --ready-json line the dashboard launcher reads, and a graceful SIGTERM.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { demoAccounts } from '../../src/service/accounts/demo';
import { COUNTERS_FILE } from '../../src/service/quota/accountQuotaLedger';
import { call } from './service-support';

const MAIN = resolve('src/service/main.ts');
const dir = mkdtempSync(join(tmpdir(), 'gexdeck-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]) {
	return spawnSync(process.execPath, ['--import', 'tsx', MAIN, ...args], {
		encoding: 'utf8',
		timeout: 60_000
	});
}

describe('service CLI', () => {
	it('--print-keys lists the deterministic demo keys and exits', () => {
		const r = run(['--print-keys']);
		expect(r.status).toBe(0);
		for (const account of demoAccounts().accounts) {
			expect(r.stdout).toContain(account._id);
			for (const k of account.keys) expect(r.stdout).toContain(k.key);
		}
	});

	it('refuses an invalid accounts file naming the offending path', () => {
		const doc = JSON.parse(JSON.stringify(demoAccounts()));
		doc.accounts[2].keys[0].expires_at = 'next week';
		const bad = join(dir, 'bad.json');
		writeFileSync(bad, JSON.stringify(doc));
		const r = run(['--accounts', bad, '--print-keys']);
		expect(r.status).toBe(2);
		expect(r.stderr).toContain(`${bad}: accounts[2].keys[0].expires_at`);

		writeFileSync(bad, '{"accounts": [');
		expect(run(['--accounts', bad]).stderr).toContain('not valid JSON');
		expect(run(['--accounts', join(dir, 'missing.json')]).stderr).toContain(
			'cannot read accounts file'
		);
		expect(run(['--port', 'abc']).status).toBe(2);
		expect(run(['--clock', 'moon']).status).toBe(2);
	});

	it('prints the ready line first, serves, and shuts down on SIGTERM', async () => {
		const dataDir = join(dir, 'data');
		const child = spawn(
			process.execPath,
			[
				'--import',
				'tsx',
				MAIN,
				'--port',
				'0',
				'--ready-json',
				'--data-dir',
				dataDir,
				'--tickers',
				'UNG'
			],
			{ stdio: ['ignore', 'pipe', 'pipe'] }
		);
		const lines = createInterface({ input: child.stdout! });
		const iterator = lines[Symbol.asyncIterator]();
		const first = (await iterator.next()).value as string;
		const second = (await iterator.next()).value as string;
		const ready = JSON.parse(first) as {
			event: string;
			base_url: string;
			accounts: {
				_id: string;
				max_level: string;
				addons: string[];
				keys: { key: string; integration: string; product: string }[];
			}[];
		};
		expect(ready.event).toBe('ready');
		expect(ready.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2$/);
		expect(ready.accounts.map((a) => a._id)).toEqual(demoAccounts().accounts.map((a) => a._id));
		expect(Object.keys(ready.accounts[0].keys[0]).sort()).toEqual([
			'integration',
			'key',
			'product'
		]);
		expect(second).toBe(`gexdeck: service listening on ${ready.base_url}`);

		const quantKey = ready.accounts.find((a) => a.max_level === 'quant')!.keys[0].key;
		expect((await call(`${ready.base_url}/UNG/classic/full`, { key: quantKey })).status).toBe(200);
		// The CLI attaches the WebSocket hubs: negotiation answers on the same port.
		const negotiated = await fetch(`${ready.base_url}/negotiate`, {
			method: 'POST',
			headers: {
				'User-Agent': 'gexdeck-tests/1.0',
				Authorization: `Bearer ${quantKey}`,
				'Content-Type': 'application/json'
			},
			body: JSON.stringify({ groups: ['UNG_classic_gex_full', 'UNG_spot'] })
		});
		expect(negotiated.status).toBe(200);
		expect(
			Object.keys(((await negotiated.json()) as { websocket_urls: object }).websocket_urls)
		).toContain('v2_classic');
		const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
		child.kill('SIGTERM');
		expect(await exited).toBe(0);
		expect(existsSync(join(dataDir, COUNTERS_FILE))).toBe(true);
	}, 120_000);
});
