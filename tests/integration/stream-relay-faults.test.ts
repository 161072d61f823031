/**
 * The relay against a misbehaving upstream, over real sockets: negotiation answering 500, 502,
 * 503 or 429 (a storm), hanging or trickling one byte per second; hub upgrades refused with 5xx
 * or 429 or never answered; truncated and garbage hub frames; every hub close the service and
 * Azure Web PubSub use; spot frames of one calculation arriving on two hubs out of step. In each
 * case the relay stays up, never POSTs in a loop (POSTs are counted), and its status tells the
 * viewers what is happening. A small fake upstream plays the faults; the embedded service
 * itself is killed and restarted in stream-relay-restart.test.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { SESSION_LIMIT_REASON } from '../../src/lib/contract/hubs';
import { StreamRelay } from '../../src/lib/server/stream';
import type { ViewerSocket } from '../../src/lib/server/stream/viewer';
import { parseRelayFrame } from '../../src/lib/relay/relayFrame';
import type { StatusMessage } from '../../src/lib/relay/protocol';
import { encodeFrame, initWireEncoder } from '../../src/lib/wire/encode';
import { REPLACED_REASON } from '../../src/service/hubs/slots';

const GROUP = 'SPX_classic_gex_full';
const KEY = 'gexbot_custom_' + 'f'.repeat(43);

/** The fake upstream: negotiation and hub behaviour are swapped per test. */
class FakeUpstream {
	readonly requests: string[] = [];
	readonly hubSockets = new Set<WebSocket>();
	upgrades = 0;
	negotiate: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => this.urls(res);
	upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void = (req, s, h) =>
		this.accept(req, s, h);
	onHub: (ws: WebSocket, hub: string) => void = () => undefined;
	private readonly server: Server;
	private readonly wss = new WebSocketServer({
		noServer: true,
		handleProtocols: () => 'json.webpubsub.azure.v1'
	});

	constructor() {
		this.server = createServer((req, res) => {
			this.requests.push(`${req.method} ${req.url}`);
			req.resume();
			req.on('end', () => this.negotiate(req, res));
		});
		this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
			socket.on('error', () => undefined);
			this.upgrades++;
			this.upgrade(req, socket, head);
		});
	}

	async listen(): Promise<void> {
		await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
	}

	get origin(): string {
		return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
	}

	get posts(): number {
		return this.requests.filter((r) => r.startsWith('POST')).length;
	}

	urls(res: ServerResponse, hubs = ['v2_classic']): void {
		const urls: Record<string, string> = {};
		for (const hub of hubs) urls[hub] = `ws://${this.origin}/client/hubs/${hub}?access_token=t`;
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(JSON.stringify({ websocket_urls: urls }));
	}

	accept(req: IncomingMessage, socket: Duplex, head: Buffer): void {
		const hub = /hubs\/(\w+)/.exec(req.url ?? '')?.[1] ?? '?';
		this.wss.handleUpgrade(req, socket, head, (ws) => {
			this.hubSockets.add(ws);
			ws.on('close', () => this.hubSockets.delete(ws));
			ws.send(
				JSON.stringify({ type: 'system', event: 'connected', userId: null, connectionId: 'c' })
			);
			this.onHub(ws, hub);
		});
	}

	reset(): void {
		this.requests.length = 0;
		this.upgrades = 0;
		this.negotiate = (_req, res) => this.urls(res);
		this.upgrade = (req, s, h) => this.accept(req, s, h);
		this.onHub = () => undefined;
		for (const ws of this.hubSockets) ws.terminate();
	}

	close(): void {
		this.wss.close();
		this.server.closeAllConnections();
		this.server.close();
	}
}

/** A viewer without a socket: records status messages and relay frames. */
function recorder() {
	const statuses: StatusMessage[] = [];
	const frames: { group: string; any: Buffer }[] = [];
	const socket: ViewerSocket = {
		readyState: 1,
		bufferedAmount: 0,
		send: (data: Uint8Array | string, cb?: (err?: Error) => void) => {
			if (typeof data === 'string') {
				const m = JSON.parse(data) as StatusMessage;
				if (m.type === 'status') statuses.push(m);
			} else {
				const p = parseRelayFrame(data);
				if (!p.ok) throw new Error(p.error);
				frames.push({ group: p.frame.group, any: Buffer.from(p.frame.any) });
			}
			cb?.();
		},
		close: () => undefined
	};
	return { socket, statuses, frames };
}

const upstream = new FakeUpstream();
const relays: StreamRelay[] = [];

beforeAll(() => upstream.listen());
afterEach(async () => {
	for (const r of relays.splice(0)) await r.close();
	upstream.reset();
});
afterAll(() => upstream.close());

function start(options: Partial<ConstructorParameters<typeof StreamRelay>[0]> = {}) {
	const relay = new StreamRelay({
		baseUrl: `http://${upstream.origin}/v2`,
		key: KEY,
		userAgent: 'gexdeck/test',
		backoff: { baseMs: 20, maxMs: 2_000 },
		random: () => 0.5,
		timeouts: { negotiateMs: 300, handshakeMs: 300 },
		...options
	});
	relays.push(relay);
	const viewer = recorder();
	relay.subscribe(relay.connect(viewer.socket, 'test'), [GROUP]);
	return { relay, ...viewer };
}

async function until(what: string, cond: () => boolean, timeoutMs = 5_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!cond()) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 10));
	}
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function frameText(group: string, any: Buffer): string {
	return JSON.stringify({
		type: 'message',
		from: 'group',
		group,
		dataType: 'protobuf',
		data: any.toString('base64')
	});
}

describe('negotiation faults', () => {
	const answers: [string, (res: ServerResponse) => void][] = [
		[
			'500 JSON',
			(res) =>
				res
					.writeHead(500, { 'Content-Type': 'application/json' })
					.end('{"error":"Internal error."}')
		],
		[
			'502 HTML',
			(res) => res.writeHead(502, { 'Content-Type': 'text/html' }).end('<html>Bad Gateway</html>')
		],
		['503 empty', (res) => res.writeHead(503).end()],
		[
			'200 garbage',
			(res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"websocket_')
		]
	];
	for (const [name, answer] of answers) {
		it(`${name}: backs off (no POST storm), says so, and recovers`, async () => {
			upstream.negotiate = (_req, res) => answer(res);
			const { relay, statuses } = start();
			await sleep(700);
			// Delays of 15, 30, 60, 120, 240 ms (equal jitter at 0.5): at most 6 POSTs in 700 ms.
			expect(upstream.posts).toBeGreaterThanOrEqual(3);
			expect(upstream.posts).toBeLessThanOrEqual(7);
			expect(relay.state).toBe('reconnecting');
			const status = name.slice(0, 3);
			const reason = statuses.at(-1)!.reason!;
			expect(reason).toMatch(/retrying in \d+ ms/);
			if (status !== '200') expect(reason).toContain(status);
			else expect(reason).toMatch(/not JSON/);
			upstream.negotiate = (_req, res) => upstream.urls(res);
			await until('live', () => relay.state === 'live');
		});
	}

	it('a hanging negotiation and one that trickles a byte a second time out and retry', async () => {
		const held: ServerResponse[] = [];
		upstream.negotiate = (_req, res) => void held.push(res);
		const { relay, statuses } = start();
		await until('reconnecting', () => relay.state === 'reconnecting');
		expect(statuses.at(-1)!.reason).toMatch(/negotiate POST failed: .*(timeout|abort)/i);
		const postsWhileHanging = upstream.posts;

		const drip: NodeJS.Timeout[] = [];
		upstream.negotiate = (_req, res) => {
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.flushHeaders();
			const body = '{"websocket_urls":{}}';
			let i = 0;
			drip.push(setInterval(() => i < body.length && res.write(body[i++]), 1000));
		};
		try {
			// Up to the 2 s backoff plus an attempt; generous for a loaded machine.
			await until(
				'a cut-off answer',
				() => statuses.some((s) => /answer \(200\) was cut off/.test(s.reason ?? '')),
				15_000
			);
			expect(relay.state).toBe('reconnecting');
		} finally {
			// Stop the drip and the held answers even when the wait failed (else closing the relay
			// waits on them and the failure hides behind a hook timeout).
			for (const t of drip) clearInterval(t);
			for (const res of held) res.destroy();
		}
		// Every attempt waited its timeout (300 ms) plus a growing delay: a handful, not a storm.
		expect(upstream.posts).toBeLessThanOrEqual(postsWhileHanging + 3);
	});

	it('a redirect on negotiation is not followed (the key would go along)', async () => {
		upstream.negotiate = (_req, res) =>
			res.writeHead(307, { Location: `http://${upstream.origin}/elsewhere` }).end();
		const { relay, statuses } = start();
		await until('reconnecting', () => relay.state === 'reconnecting');
		expect(statuses.at(-1)!.reason).toMatch(/redirect/i);
		expect(upstream.requests.every((r) => r === 'POST /v2/negotiate')).toBe(true);
	});

	it('a 429 storm on negotiation waits out Retry-After before asking again', async () => {
		const times: number[] = [];
		upstream.negotiate = (_req, res) => {
			times.push(performance.now());
			res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '1' });
			res.end('{"error":"Rate limit exceeded."}');
		};
		const { relay, statuses } = start();
		await sleep(2_300);
		expect(relay.state).toBe('reconnecting');
		expect(statuses.at(-1)!.reason).toMatch(/429: Rate limit exceeded\.; retrying in 1\d{3} ms/);
		expect(times.length).toBeGreaterThanOrEqual(2);
		expect(times.length).toBeLessThanOrEqual(3);
		for (let i = 1; i < times.length; i++)
			expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(990);
	});
});

describe('hub faults', () => {
	for (const status of [500, 502, 503, 429]) {
		it(`an upgrade refused with ${status} is retried with the same URL, no new POST`, async () => {
			let refusals = 3;
			upstream.upgrade = (req, socket, head) => {
				if (refusals-- <= 0) return upstream.accept(req, socket, head);
				socket.end(
					`HTTP/1.1 ${status} Nope\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{"error":"upstream ${status}"}`
				);
			};
			const { relay, statuses } = start();
			await until('live', () => relay.state === 'live');
			expect(upstream.posts).toBe(1);
			expect(upstream.upgrades).toBe(4);
			expect(statuses.some((s) => s.reason?.includes(`upstream ${status}`))).toBe(true);
		});
	}

	it('an upgrade that is never answered times out and is retried', async () => {
		let hangs = 2;
		upstream.upgrade = (req, socket, head) => {
			if (hangs-- > 0) return; // accept the TCP connection, answer nothing
			upstream.accept(req, socket, head);
		};
		const { relay, statuses } = start();
		await until('live', () => relay.state === 'live');
		expect(upstream.posts).toBe(1);
		expect(statuses.some((s) => /timed out|timeout/i.test(s.reason ?? ''))).toBe(true);
	});

	it('skips truncated and garbage frames and keeps relaying the good ones', async () => {
		const good = Buffer.from([10, 3, 1, 2, 3]);
		upstream.onHub = (ws) => {
			for (const text of [
				'{"type":"message","from":"group","group":"SPX_classic_gex_full","dataType":"proto',
				'garbage',
				'',
				'null',
				'[]',
				'{"type":"message","from":"group","group":"SPX_classic_gex_full","dataType":"protobuf","data":42}',
				'{"type":"message","from":"group","group":"SPX_classic_gex_full","dataType":"json","data":{"a":1}}',
				`{"type":"message","from":"group","group":"${'X'.repeat(200)}","dataType":"protobuf","data":"AAAA"}`,
				'{"type":"system","event":"disconnected"}',
				'{"type":"ack","ackId":-1,"success":"yes"}'
			])
				ws.send(text);
			ws.send(Buffer.from([0, 1, 2, 3]), { binary: true });
			ws.send(frameText(GROUP, good));
		};
		const { relay, frames } = start();
		await until('the good frame', () => frames.length > 0);
		expect(frames).toEqual([{ group: GROUP, any: good }]);
		expect(relay.state).toBe('live');
		expect(relay.counters.hubDrops).toBe(0);
		expect(upstream.posts).toBe(1);
	});

	const closes: [string, number, string][] = [
		['normal closure', 1000, ''],
		['service going away', 1001, 'Service shutting down'],
		['internal error', 1011, 'Internal error'],
		['a slow consumer', 1008, 'Send buffer over 8388608 bytes: client is not reading fast enough'],
		['a newer connection on the same URL', 1008, REPLACED_REASON],
		['a superseded negotiation', 1008, 'Access token belongs to a superseded negotiation']
	];
	for (const [name, code, reason] of closes) {
		it(`a hub closed for ${name} (${code}) reconnects with its URL and says why`, async () => {
			let first = true;
			upstream.onHub = (ws) => {
				if (!first) return;
				first = false;
				setTimeout(() => {
					if (reason)
						ws.send(JSON.stringify({ type: 'system', event: 'disconnected', message: reason }));
					ws.close(code, reason);
				}, 20);
			};
			const { relay, statuses } = start();
			await until('the drop', () => relay.counters.hubDrops === 1);
			await until('live again', () => relay.state === 'live' && upstream.upgrades === 2);
			const dropped = statuses.find((s) => s.state === 'reconnecting')!;
			expect(dropped.reason).toContain('hub v2_classic dropped');
			expect(dropped.reason).toContain(reason || `code ${code}`);
			expect(upstream.posts).toBe(1);
		});
	}

	it('a connection cut without a close frame (1006) reconnects', async () => {
		let first = true;
		upstream.onHub = (ws) => {
			if (first) setTimeout(() => ws.terminate(), 20);
			first = false;
		};
		const { relay } = start();
		await until('the drop', () => relay.counters.hubDrops === 1);
		await until('live again', () => relay.state === 'live' && upstream.upgrades === 2);
		expect(upstream.posts).toBe(1);
	});

	it('Websocket Session Limit Reached stops the relay as slot-taken, without a POST', async () => {
		upstream.onHub = (ws) =>
			setTimeout(() => {
				ws.send(
					JSON.stringify({ type: 'system', event: 'disconnected', message: SESSION_LIMIT_REASON })
				);
				ws.close(1008, SESSION_LIMIT_REASON);
			}, 20);
		const { relay, statuses } = start();
		await until('slot-taken', () => relay.state === 'slot-taken');
		await sleep(300);
		expect(upstream.posts).toBe(1);
		expect(upstream.upgrades).toBe(1);
		expect(statuses.at(-1)!.reason).toMatch(/Another program .* took the slot/);
	});

	it('spot frames of one calculation on two hubs reach viewers once each, in order', async () => {
		await initWireEncoder();
		// 40 ticks: the lag below is longer than any short window of recent frames could cover.
		const spots = Array.from({ length: 40 }, (_, n) =>
			Buffer.from(
				encodeFrame('spot', { timestamp: 1_763_500_000 + n, ticker: 'SPX', spot: 6000 + n })
			)
		);
		const hubs: WebSocket[] = [];
		upstream.negotiate = (_req, res) => upstream.urls(res, ['v2_classic', 'v2_orderflow']);
		upstream.onHub = (ws) => hubs.push(ws);
		const relay = new StreamRelay({
			baseUrl: `http://${upstream.origin}/v2`,
			key: KEY,
			userAgent: 'gexdeck/test'
		});
		relays.push(relay);
		const viewer = recorder();
		relay.subscribe(relay.connect(viewer.socket, 'test'), [GROUP, 'SPX_orderflow_orderflow']);
		await until('both hubs', () => hubs.length === 2 && relay.state === 'live');
		// The orderflow hub lags 40 ticks behind the classic one.
		for (let i = 0; i < spots.length; i++) hubs[0].send(frameText('SPX_spot', spots[i]));
		for (let i = 0; i < spots.length; i++) hubs[1].send(frameText('SPX_spot', spots[i]));
		await until('the copies', () => relay.counters.spotDuplicates === spots.length);
		expect(viewer.frames.map((f) => f.any)).toEqual(spots);
	});
});
