/**
 * The embedded service's bounds, over real sockets: a handler that throws answers 500 for that
 * request only; slow headers, an unfinished request and an idle socket are cut; connections
 * beyond the cap are refused; one negotiated URL holds one WebSocket (a newer one replaces the
 * older); a history answer may take longer than the idle bound; the route-lookup cache keeps
 * no refusals and stays within its bounds.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { WEBPUBSUB_SUBPROTOCOL } from '../../src/lib/contract/pubsub';
import { demoAccounts } from '../../src/service/accounts/demo';
import {
	RESOLVED_CACHE_MAX_BYTES,
	RESOLVED_CACHE_MAX_ENTRIES,
	resolvedCacheStats
} from '../../src/service/http/router';
import { setLogSink } from '../../src/lib/server/log';
import type { Hubs } from '../../src/service/hubs/index';
import { REPLACED_REASON } from '../../src/service/hubs/slots';
import type { RunningService } from '../../src/service/server';
import { ManualMarket } from './service-hubs.market';
import { UA, negotiateUrls, startHubService, type HubService } from './service-support';

const quantKey = demoAccounts()
	.accounts.find((a) => a._id === 'demo-quant')!
	.keys.find((k) => k.integration === 'custom')!.key;
/** A market whose stored days take a while to come (a day being generated). */
class SlowDayMarket extends ManualMarket {
	override async history(): Promise<Buffer> {
		await new Promise((r) => setTimeout(r, 1_500));
		return Buffer.from('[]');
	}
}

let service: RunningService;
let hubs: Hubs;
let t: HubService;
const MAX_CONNECTIONS = 6;

beforeAll(async () => {
	t = await startHubService({
		market: new SlowDayMarket(),
		limits: {
			headersTimeoutMs: 300,
			requestTimeoutMs: 600,
			idleTimeoutMs: 500,
			maxConnections: MAX_CONNECTIONS
		}
	});
	({ service, hubs } = t);
});

afterAll(async () => {
	await t?.close();
});

function open(): Promise<Socket> {
	return new Promise((resolve, reject) => {
		const s = connect(service.port, '127.0.0.1', () => resolve(s));
		s.on('error', reject);
	});
}

/** Resolves with what the server sent once it closed the connection (or `timeoutMs` passed). */
function untilClosed(s: Socket, timeoutMs: number): Promise<{ closed: boolean; got: string }> {
	return new Promise((resolve) => {
		let got = '';
		s.on('data', (d) => (got += d.toString()));
		const timer = setTimeout(() => resolve({ closed: false, got }), timeoutMs);
		s.once('close', () => {
			clearTimeout(timer);
			resolve({ closed: true, got });
		});
	});
}

async function get(path: string) {
	const res = await fetch(service.rootUrl + path, {
		headers: { 'User-Agent': UA, Accept: 'application/json', Authorization: `Bearer ${quantKey}` }
	});
	return { status: res.status, text: await res.text() };
}

describe('service limits', () => {
	it('a handler that throws answers 500 for that request, logged, and the service goes on', async () => {
		const errors: string[] = [];
		const previous = setLogSink({ out: () => undefined, err: (line) => errors.push(line) });
		service.addRoute('/test/throws', () => {
			throw new Error('boom in a handler');
		});
		service.addRoute('/test/rejects', async () => {
			await Promise.resolve();
			throw new Error('boom after an await');
		});
		try {
			for (const path of ['/test/throws', '/test/rejects']) {
				const r = await get(path);
				expect(r.status).toBe(500);
				expect(JSON.parse(r.text)).toEqual({ error: 'Internal server error.' });
				expect(r.text).not.toMatch(/boom/);
			}
			expect(errors).toEqual(expect.arrayContaining([expect.stringMatching(/boom in a handler/)]));
		} finally {
			setLogSink(previous);
			service.routes.exact.delete('/test/throws');
			service.routes.exact.delete('/test/rejects');
		}
		expect((await get('/v2/tickers')).status).toBe(200);
	});

	it('cuts slow headers, an unfinished body and an idle connection', async () => {
		const slowHeaders = await open();
		slowHeaders.write('GET /v2/tickers HTTP/1.1\r\nHost: x\r\n');
		const a = await untilClosed(slowHeaders, 5_000);
		expect(a.closed).toBe(true);
		expect(a.got).toMatch(/^HTTP\/1\.1 408/);

		const slowBody = await open();
		slowBody.write(
			'POST /v2/negotiate HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\nUser-Agent: t\r\n\r\n{"gr'
		);
		// Dribble a byte now and then: activity keeps the idle timer quiet, not the request one.
		const drip = setInterval(() => slowBody.writable && slowBody.write(' '), 100);
		const b = await untilClosed(slowBody, 5_000);
		clearInterval(drip);
		expect(b.closed).toBe(true);

		const idle = await open();
		const c = await untilClosed(idle, 5_000);
		expect(c.closed).toBe(true);
		expect((await get('/v2/tickers')).status).toBe(200);
	});

	it('a history answer prepared for longer than the idle bound is not cut', async () => {
		const date = new Date(service.market.now().getTime() - 86_400_000).toISOString().slice(0, 10);
		const started = Date.now();
		const r = await get(`/v2/hist/SPX/classic/gex_full/${date}?noredirect=true`);
		// Three idle bounds passed without a byte; the route's own bound held the socket open.
		expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
		expect(r.status, r.text).toBe(200);
		expect(JSON.parse(r.text)).toHaveProperty('url');
	});

	it('refuses connections beyond the cap and accepts again once some close', async () => {
		const held: Socket[] = [];
		for (let i = 0; i < MAX_CONNECTIONS; i++) held.push(await open());
		const extra = await open();
		// Node closes a connection over maxConnections as soon as it is accepted.
		expect((await untilClosed(extra, 2_000)).closed).toBe(true);
		for (const s of held) s.destroy();
		await new Promise((r) => setTimeout(r, 100));
		expect((await get('/v2/tickers')).status).toBe(200);
	});

	it('one negotiated URL holds one WebSocket: a newer connection replaces the older', async () => {
		const urls = await negotiateUrls(service.url, quantKey, ['SPX_classic_gex_full', 'SPX_spot']);
		const closes: { code: number; reason: string }[] = [];
		const sockets: WebSocket[] = [];
		for (let i = 0; i < 40; i++) {
			const ws = new WebSocket(urls.v2_classic, WEBPUBSUB_SUBPROTOCOL, {
				headers: { 'User-Agent': UA }
			});
			ws.on('close', (code, reason) => closes.push({ code, reason: reason.toString() }));
			await new Promise((resolve, reject) => {
				ws.once('message', resolve);
				ws.once('error', reject);
			});
			sockets.push(ws);
		}
		while (closes.length < 39) await new Promise((r) => setTimeout(r, 20));
		const slot = hubs.slots.find('demo-quant', 'custom')!;
		expect(slot.connections.size).toBe(1);
		expect(sockets.at(-1)!.readyState).toBe(WebSocket.OPEN);
		expect(closes).toEqual(Array(39).fill({ code: 1008, reason: REPLACED_REASON }));
		// Another hub of the same negotiation is another URL: it connects beside it.
		const other = new WebSocket(urls.v2_orderflow, WEBPUBSUB_SUBPROTOCOL, {
			headers: { 'User-Agent': UA }
		});
		await new Promise((resolve) => other.once('message', resolve));
		expect(slot.connections.size).toBe(2);
		other.terminate();
		for (const ws of sockets) ws.terminate();
	});

	it('the route-lookup cache keeps no refusals and stays within its bounds', async () => {
		const before = resolvedCacheStats();
		for (let i = 0; i < 300; i++) {
			const r = await fetch(`${service.url}/${'Z'.repeat(3000)}${i}/classic/gex_full`, {
				headers: { 'User-Agent': UA }
			});
			expect(r.status).toBeGreaterThanOrEqual(400);
			await r.arrayBuffer();
		}
		expect(resolvedCacheStats()).toEqual(before);
		const stats = resolvedCacheStats();
		expect(stats.entries).toBeLessThanOrEqual(RESOLVED_CACHE_MAX_ENTRIES);
		expect(stats.bytes).toBeLessThanOrEqual(RESOLVED_CACHE_MAX_BYTES);
	});
});
