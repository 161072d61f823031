/**
 * No peer can take the embedded service down: every entry point (REST routes, negotiation,
 * hub upgrades, history and EOD routes, downloads) gets malformed request lines, headers,
 * percent-encodings, methods, bodies and upgrade requests over a raw TCP socket, each followed
 * by a TCP reset (RST), once right after sending and once after the answer began. The service
 * runs as its own process (src/service/main.ts, as `npm run service` starts it), so a crash is
 * an exit, and it must still answer REST, negotiation and a hub connection afterwards.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { WEBPUBSUB_SUBPROTOCOL } from '../../src/lib/contract/pubsub';
import { demoAccountsFor } from '../../src/service/accounts/demo';
import { UA, negotiateUrls, sendThenReset, spawnService } from './service-support';

let child: ChildProcess;
let port = 0;
let dataDir: string;
let quantKey = '';
let stderr = '';

beforeAll(async () => {
	dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-crash-'));
	// The spawned service's demo keys are its data folder's own (read from the same seed file).
	quantKey = demoAccountsFor(dataDir).accounts.find((a) => a._id === 'demo-quant')!.keys[0].key;
	({ child, port } = await spawnService({
		dataDir,
		tickers: ['SPX', 'UNG'],
		seed: 3,
		onStderr: (text) => (stderr += text)
	}));
}, 60_000);

afterAll(async () => {
	if (child && child.exitCode === null) {
		child.kill('SIGTERM');
		await new Promise((r) => child.once('exit', r));
	}
	rmSync(dataDir, { recursive: true, force: true });
});

const attack = (bytes: string | Buffer, waitMs: number) => sendThenReset(port, bytes, waitMs);

async function get(path: string, headers: Record<string, string> = {}) {
	const res = await fetch(`http://127.0.0.1:${port}${path}`, {
		headers: { 'User-Agent': UA, Accept: 'application/json', ...headers },
		redirect: 'manual'
	});
	return { status: res.status, text: await res.text() };
}

const negotiate = () =>
	negotiateUrls(`http://127.0.0.1:${port}/v2`, quantKey, ['SPX_classic_gex_full', 'SPX_spot']);

/** The service is alive and answers REST, negotiation and a hub connection. */
async function expectHealthy(): Promise<void> {
	expect(child.exitCode, stderr).toBeNull();
	expect((await get('/v2/tickers')).status).toBe(200);
	const urls = await negotiate();
	const ws = new WebSocket(urls.v2_classic, WEBPUBSUB_SUBPROTOCOL, {
		headers: { 'User-Agent': UA }
	});
	const first = await new Promise<string>((resolve, reject) => {
		ws.once('message', (d) => resolve(String(d)));
		ws.once('error', reject);
	});
	expect(JSON.parse(first)).toMatchObject({ type: 'system', event: 'connected' });
	ws.terminate();
}

function request(
	method: string,
	path: string,
	headers: Record<string, string> = {},
	body = ''
): string {
	const lines = [`${method} ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, `User-Agent: ${UA}`];
	for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
	return lines.join('\r\n') + '\r\n\r\n' + body;
}

function upgrade(path: string, headers: Record<string, string> = {}): string {
	return request('GET', path, {
		Connection: 'Upgrade',
		Upgrade: 'websocket',
		'Sec-WebSocket-Version': '13',
		'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
		'Sec-WebSocket-Protocol': WEBPUBSUB_SUBPROTOCOL,
		...headers
	});
}

describe('the embedded service survives hostile peers', () => {
	it('malformed REST requests, each followed by a TCP reset', async () => {
		const auth = { Authorization: `Bearer ${quantKey}` };
		const cases: (string | Buffer)[] = [
			request('GET', '/v2/SPX/classic/gex_full'),
			request('GET', '/v2/SPX/classic/gex_full', auth),
			request('GET', '/v2/SPX/classic/gex_full', { Authorization: 'Bearer %' }),
			request('GET', '/v2/%/classic/%E0%A4%A'),
			request('GET', '/v2/' + 'A'.repeat(6000) + '/classic/gex_full', auth),
			request('GET', '/v2/%00/state/%ff%fe', auth),
			request('GET', '/v2/tickers?%=%&a=%E0%A4%A'),
			request('GET', '/v2/whoami', { ...auth, Accept: 'text/%%' }),
			request('FOO', '/v2/tickers'),
			request('DELETE', '/v2/SPX/classic/gex_full', auth),
			request('CONNECT', '127.0.0.1:1'),
			request('OPTIONS', '*'),
			request('GET', 'http://[::1/v2/tickers'),
			request('GET', '//evil.example/v2/tickers'),
			'GET /v2/tickers HTTP/1.1\r\nHost: x\r\nBroken header line\r\n\r\n',
			'GET /v2/tickers HTTP/1.1\r\nHost: x\r\n folded: header\r\n\r\n',
			'GET /v2/tickers HTTP/9.9\r\n\r\n',
			'GET /v2/tickers\r\n\r\n',
			Buffer.from([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03, 0x03]), // TLS hello
			Buffer.from('GET /v2/tickers HTTP/1.1\r\nHost: \x00\x01\xff\r\n\r\n', 'latin1'),
			request('GET', '/v2/tickers', { 'X-Big': 'x'.repeat(20_000) }),
			request('POST', '/v2/tickers', { 'Content-Length': '5', 'Transfer-Encoding': 'chunked' }),
			request('POST', '/v2/tickers', { 'Content-Length': '100' }, 'short'),
			request('POST', '/v2/tickers', { 'Content-Length': '1', 'content-length': '2' }, 'ab'),
			request('POST', '/v2/tickers', { 'Transfer-Encoding': 'chunked' }, 'zz\r\nnothex\r\n'),
			'GET /v2/tick',
			// Two pipelined requests, the second cut in the middle.
			request('GET', '/v2/tickers') + 'GET /v2/tickers HTTP/1.1\r\nHo'
		];
		for (const bytes of cases) {
			await attack(bytes, 0);
			await attack(bytes, 60);
		}
		await expectHealthy();
	}, 60_000);

	it('negotiation with bad methods, keys and bodies, each followed by a TCP reset', async () => {
		const auth = { Authorization: `Bearer ${quantKey}`, 'Content-Type': 'application/json' };
		const json = (body: string) => ({ ...auth, 'Content-Length': String(Buffer.byteLength(body)) });
		const cases = [
			request('POST', '/v2/negotiate', json('{"groups":'), '{"groups":'),
			request('POST', '/v2/negotiate', json('{"groups":[1,2,{}]}'), '{"groups":[1,2,{}]}'),
			request('POST', '/v2/negotiate', json('null'), 'null'),
			request('PATCH', '/v2/negotiate', json('{"groups":"x"}'), '{"groups":"x"}'),
			request('PUT', '/v2/negotiate', auth),
			request('GET', '/v2/negotiate', { Authorization: 'Basic %%%' }),
			// Declares a large body and sends part of it: the reset arrives mid-body.
			request('POST', '/v2/negotiate', { ...auth, 'Content-Length': '300000' }, 'x'.repeat(70_000)),
			request('POST', '/v2/negotiate', { ...auth, 'Transfer-Encoding': 'chunked' }, '5\r\n{"gro'),
			request('GET', '/client/hubs/v2_classic'),
			request('GET', '/client/hubs/%zz')
		];
		for (const bytes of cases) {
			await attack(bytes, 0);
			await attack(bytes, 60);
		}
		await expectHealthy();
	}, 60_000);

	it('hub upgrades with bad tokens, subprotocols and headers, each followed by a TCP reset', async () => {
		const urls = await negotiate();
		const valid = new URL(urls.v2_classic);
		const token = valid.searchParams.get('access_token')!;
		const path = `/client/hubs/v2_classic?access_token=${encodeURIComponent(token)}`;
		const cases = [
			upgrade('/client/hubs/v2_classic?access_token=bad'),
			upgrade('/client/hubs/v2_classic?access_token=%'),
			upgrade('/client/hubs/v2_classic?access_token=a.b'),
			upgrade('/client/hubs/v2_classic'),
			upgrade('/client/hubs/nohub?access_token=x'),
			upgrade(`/client/hubs/v2_orderflow?access_token=${encodeURIComponent(token)}`),
			upgrade(path, { 'Sec-WebSocket-Protocol': 'other.protocol' }),
			upgrade(path, { 'Sec-WebSocket-Protocol': '' }),
			upgrade(path, { 'Sec-WebSocket-Key': 'short' }),
			upgrade(path, { 'Sec-WebSocket-Version': '8' }),
			upgrade('/v2/tickers'),
			upgrade('/%'),
			upgrade('http://[::1/client/hubs/v2_classic'),
			// A valid handshake: reset during it, and after the connection is up.
			upgrade(path),
			// A valid handshake followed by a garbage WebSocket frame.
			upgrade(path) + '\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
		];
		for (const bytes of cases) {
			await attack(bytes, 0);
			const answer = await attack(bytes, 60);
			// Refusals are answered with a status and the reason before the reset.
			if (bytes.includes('access_token=bad')) expect(answer).toMatch(/^HTTP\/1\.1 401/);
			if (bytes.includes('other.protocol')) expect(answer).toMatch(/^HTTP\/1\.1 400/);
		}
		await expectHealthy();
	}, 60_000);

	it('history, EOD and download requests reset while the answer is prepared', async () => {
		const auth = { Authorization: `Bearer ${quantKey}` };
		const cases = [
			request('GET', '/v2/hist/UNG/classic/gex_full/2026-11-17', auth),
			request('GET', '/v2/hist/UNG/classic/gex_full/2026-11-17?noredirect=%', auth),
			request('GET', '/v2/hist/UNG/classic/gex_full/2026-13-45', auth),
			request('GET', '/v2/hist/eod/UNG', auth),
			request('GET', '/hist/eod/%', auth),
			request('GET', '/download/hist/UNG/2026-11-17/x.json.gz?sig=%&exp=1'),
			request('GET', '/download/hist/%2e%2e/%2e%2e/etc/passwd'),
			request('HEAD', '/download/hist/x')
		];
		for (const bytes of cases) {
			await attack(bytes, 0);
			await attack(bytes, 200);
		}
		await expectHealthy();
	}, 120_000);
});
