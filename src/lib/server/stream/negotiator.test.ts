/**
 * Negotiation never follows a redirect: the key's POST must not travel to another host; its
 * deadline holds for an answer whose body trickles in, whatever the garbage collector does; and an
 * answer longer than MAX_ANSWER_BYTES is refused.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ANSWER_BYTES, NegotiationError, Negotiator } from './negotiator';

let upstream: Server;
let elsewhere: Server;
const hits: string[] = [];

beforeAll(async () => {
	elsewhere = createServer((req, res) => {
		hits.push(`elsewhere ${req.method} ${req.headers.authorization}`);
		res.setHeader('content-type', 'application/json');
		res.end('{"websocket_urls":{}}');
	});
	await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.1', r));
	const to = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/v2/negotiate`;
	upstream = createServer((req, res) => {
		hits.push(`upstream ${req.method}`);
		res.writeHead(307, { location: to }).end();
	});
	await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
});

afterAll(async () => {
	await new Promise((r) => upstream.close(r));
	await new Promise((r) => elsewhere.close(r));
});

describe('Negotiator', () => {
	it('refuses a redirect instead of following it with the key', async () => {
		const n = new Negotiator({
			baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v2`,
			key: `gexbot_custom_${'K'.repeat(43)}`,
			userAgent: 'gexdeck/test'
		});
		await expect(n.post(['blue_v2_classic_SPX_gex_full'])).rejects.toBeInstanceOf(NegotiationError);
		expect(hits).toEqual(['upstream POST']);
	});

	it('gives up on an answer that trickles in, even when a collection runs meanwhile', async () => {
		// Node's AbortSignal.timeout() holds its signal weakly: collected once fetch had the
		// headers, it never fired, and the read of a trickling body waited without end.
		setFlagsFromString('--expose-gc');
		const gc = runInNewContext('gc') as () => void;
		const drips: NodeJS.Timeout[] = [];
		const trickle = createServer((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.flushHeaders();
			const body = '{"websocket_urls":{}}';
			let i = 0;
			drips.push(setInterval(() => i < body.length && res.write(body[i++]), 100));
		});
		await new Promise<void>((r) => trickle.listen(0, '127.0.0.1', r));
		const collect = setInterval(gc, 20);
		try {
			const n = new Negotiator({
				baseUrl: `http://127.0.0.1:${(trickle.address() as AddressInfo).port}/v2`,
				key: `gexbot_custom_${'K'.repeat(43)}`,
				userAgent: 'gexdeck/test',
				timeoutMs: 300
			});
			// The body needs 2.1 s; the deadline is 300 ms. Without it this waits the 2.1 s and
			// parses: the race below says which came first.
			const outcome = await Promise.race([
				n.post(['blue_v2_classic_SPX_gex_full']).then(
					() => 'answered',
					(e: Error) => e.message
				),
				new Promise<string>((r) => setTimeout(() => r('still waiting'), 1500))
			]);
			expect(outcome).toMatch(/was cut off: .*timeout/);
		} finally {
			clearInterval(collect);
			for (const d of drips) clearInterval(d);
			trickle.closeAllConnections();
			await new Promise((r) => trickle.close(r));
		}
	});

	it('refuses an answer longer than MAX_ANSWER_BYTES, and reads one up to it', async () => {
		// A valid answer padded with spaces to the size the request asks for.
		const answer = '{"websocket_urls":{"blue":"wss://x"}}';
		const big = createServer((req, res) => {
			const size = Number(new URL(req.url!, 'http://x').searchParams.get('n') ?? 0);
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(answer + ' '.repeat(size - answer.length));
		});
		await new Promise<void>((r) => big.listen(0, '127.0.0.1', r));
		const sized = (n: number) =>
			new Negotiator({
				baseUrl: `http://127.0.0.1:${(big.address() as AddressInfo).port}/v2`,
				key: `gexbot_custom_${'K'.repeat(43)}`,
				userAgent: 'gexdeck/test',
				fetch: (url, init) => fetch(`${String(url)}?n=${n}`, init)
			});
		try {
			expect(await sized(MAX_ANSWER_BYTES).post(['g'])).toEqual({ blue: 'wss://x' });
			const err = await sized(MAX_ANSWER_BYTES + 1)
				.post(['g'])
				.then(
					() => undefined,
					(e: unknown) => e
				);
			expect(err).toBeInstanceOf(NegotiationError);
			expect((err as NegotiationError).message).toMatch(/longer than 65536 bytes/);
			// An upstream fault: tried again later, not a refusal that needs a change first.
			expect((err as NegotiationError).transient).toBe(true);
		} finally {
			big.closeAllConnections();
			await new Promise((r) => big.close(r));
		}
	});
});

/** A fetch that records each request and answers `answer` (or throws it). */
function scripted(answer: () => Response) {
	const asked: { url: string; init: RequestInit }[] = [];
	const fetchImpl = (async (url: string, init: RequestInit) => {
		asked.push({ url: String(url), init });
		return answer();
	}) as unknown as typeof fetch;
	const negotiator = new Negotiator({
		baseUrl: 'https://upstream.test/v2//',
		key: `gexbot_custom_${'K'.repeat(43)}`,
		userAgent: 'gexdeck/test',
		fetch: fetchImpl
	});
	return { asked, negotiator };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
	new Response(typeof body === 'string' ? body : JSON.stringify(body), {
		status,
		headers: { 'content-type': 'application/json', ...headers }
	});

const refusal = (p: Promise<unknown>) =>
	p.then(
		() => {
			throw new Error('answered');
		},
		(e: unknown) => e as NegotiationError
	);

describe('Negotiator: requests and answers', () => {
	it('POSTs the groups with the key, and answers the hubs whose address is a string', async () => {
		const { asked, negotiator } = scripted(() =>
			json(200, { websocket_urls: { blue: 'wss://b', green: 7 } })
		);
		expect(await negotiator.post(['blue_v2_classic_SPX_gex_full'])).toEqual({ blue: 'wss://b' });
		expect(asked).toHaveLength(1);
		expect(asked[0].url).toBe('https://upstream.test/v2/negotiate');
		expect(asked[0].init.method).toBe('POST');
		expect(asked[0].init.headers).toEqual({
			Authorization: `Bearer gexbot_custom_${'K'.repeat(43)}`,
			'User-Agent': 'gexdeck/test',
			Accept: 'application/json',
			'Content-Type': 'application/json'
		});
		expect(JSON.parse(String(asked[0].init.body))).toEqual({
			groups: ['blue_v2_classic_SPX_gex_full']
		});
	});

	it('PATCHes the membership set, reading what was updated (nothing named: none)', async () => {
		const m = [{ group: 'blue_v2_classic_SPX_gex_full', hub: 'blue' }] as never;
		const full = scripted(() => json(200, { updated_groups: 2, hubs: { blue: 1 } }));
		expect(await full.negotiator.patch(m)).toEqual({ updatedGroups: 2, hubs: { blue: 1 } });
		expect(full.asked[0].init.method).toBe('PATCH');
		expect(JSON.parse(String(full.asked[0].init.body))).toEqual({ groups: m });
		const bare = scripted(() => json(200, { updated_groups: '2', hubs: null }));
		expect(await bare.negotiator.patch(m)).toEqual({ updatedGroups: 0, hubs: {} });
	});

	it("refuses an error answer with the upstream's words, its Retry-After and whether to retry", async () => {
		const slow = await refusal(
			scripted(() => json(429, { error: 'slow down' }, { 'retry-after': '7' })).negotiator.post([])
		);
		expect([slow.status, slow.message, slow.retryAfterMs, slow.transient]).toEqual([
			429,
			'slow down',
			7000,
			true
		]);
		const key = await refusal(
			scripted(() => json(401, {}, { 'retry-after': '0' })).negotiator.post([])
		);
		expect([key.status, key.message, key.retryAfterMs, key.transient]).toEqual([
			401,
			'negotiate POST answered 401',
			undefined,
			false
		]);
		for (const [status, transient] of [
			[408, true],
			[499, false],
			[500, true],
			[503, true],
			[400, false],
			[403, false]
		] as const) {
			const e = await refusal(scripted(() => json(status, 'not json')).negotiator.patch([]));
			expect([e.status, e.transient], String(status)).toEqual([status, transient]);
		}
	});

	it('a success that is not JSON, or has no hubs, is a 502; a refused connection says why', async () => {
		const text = await refusal(scripted(() => json(200, 'hello')).negotiator.post([]));
		expect([text.status, text.message]).toEqual([502, 'negotiate POST: body is not JSON']);
		const none = await refusal(scripted(() => json(200, '')).negotiator.post([]));
		expect([none.status, none.message]).toEqual([502, 'negotiate answered without websocket_urls']);
		const down = await refusal(
			scripted(() => {
				throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
			}).negotiator.post([])
		);
		expect([down.status, down.message, down.transient]).toEqual([
			0,
			'negotiate POST failed: fetch failed: connect ECONNREFUSED',
			true
		]);
	});
});
