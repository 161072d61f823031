/**
 * The fast answers over a real socket, in front of a listener standing for SvelteKit (it counts
 * what reaches it): /healthz never reaches it; a /history stream request past the cap gets the
 * 503 with Retry-After without reaching it, while one with a free slot (taken for it, handed
 * to the route once, given back when the response closes), an import of an unrecorded day from
 * the service, and one the gate refuses all still do.
 */
import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.mock('$env/dynamic/private', () => ({ env: { HOST: '127.0.0.1' } }));

const { ConnectionCap } = await import('./connectionCap');
const { fastAnswer, reservedHistorySlot } = await import('./fastAnswers');
const { interceptRequests } = await import('./httpServer');

const cap = new ConnectionCap(2, 3);
const recordedDays = new Set(['2026-11-23']);
let server: Server;
let base: string;
let reachedKit: string[] = [];
/** Slots held when the stand-in route ran (0: none reserved for it). */
let slotsSeen: number[] = [];

beforeAll(async () => {
	server = createServer((req, res) => {
		reachedKit.push(`${req.method} ${req.url}`);
		// The route finds the slot taken for it (once), and holds it while it answers.
		const slot = reservedHistorySlot(req);
		slotsSeen.push(slot ? cap.size : 0);
		if (slot && reservedHistorySlot(req)) throw new Error('a slot handed out twice');
		res.writeHead(299).end('kit');
	});
	interceptRequests(server, (req, res) =>
		fastAnswer(
			{ history: cap, recorded: (day) => recordedDays.has(day), https: () => false },
			req,
			res
		)
	);
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('fast answers', () => {
	it('answers /healthz (GET and HEAD, any query) without SvelteKit, with the API headers', async () => {
		reachedKit = [];
		const res = await fetch(`${base}/healthz`);
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ status: 'ok' });
		expect(res.headers.get('cache-control')).toBe('no-store');
		expect(res.headers.get('content-type')).toBe('application/json');
		expect(res.headers.get('x-content-type-options')).toBe('nosniff');
		expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
		const head = await fetch(`${base}/healthz?probe=1`, { method: 'HEAD' });
		expect(head.status).toBe(200);
		expect(await head.text()).toBe('');
		expect(reachedKit).toEqual([]);
	});

	it('leaves other methods and paths, and a foreign Host, to SvelteKit', async () => {
		reachedKit = [];
		expect((await fetch(`${base}/healthz`, { method: 'POST' })).status).toBe(299);
		expect((await fetch(`${base}/healthz/x`)).status).toBe(299);
		expect((await fetch(`${base}/readyz`)).status).toBe(299);
		const foreign = await new Promise<number>((resolve, reject) => {
			const url = new URL(`${base}/healthz`);
			const options = { host: url.hostname, port: url.port, path: url.pathname };
			get({ ...options, headers: { host: 'evil.example' } }, (r) => {
				r.resume();
				resolve(r.statusCode ?? 0);
			}).on('error', reject);
		});
		expect(foreign).toBe(299);
		expect(reachedKit).toEqual(['POST /healthz', 'GET /healthz/x', 'GET /readyz', 'GET /healthz']);
	});

	it('answers a /history stream past the cap 503 with Retry-After, without SvelteKit', async () => {
		reachedKit = [];
		slotsSeen = [];
		const path = '/history/SPX/classic_gex_full?day=2026-11-23';
		// A slot free: taken before SvelteKit, handed to the route, given back at the close.
		expect((await fetch(base + path)).status).toBe(299);
		expect(slotsSeen).toEqual([1]);
		await expect.poll(() => cap.size).toBe(0);
		const held = [cap.acquire()!, cap.acquire()!];
		try {
			const res = await fetch(base + path);
			expect(res.status).toBe(503);
			expect(res.headers.get('retry-after')).toBe('3');
			expect(await res.json()).toEqual({
				error: 'Too many history answers open at once (2); try again shortly.'
			});
			const head = await fetch(base + path, { method: 'HEAD' });
			expect([head.status, await head.text()]).toEqual([503, '']);
			// Not capped by the route, or not this route: SvelteKit answers as it did.
			expect((await fetch(`${base}/history/SPX`)).status).toBe(299);
			expect((await fetch(`${base}/history/SPX/x/y`)).status).toBe(299);
			expect((await fetch(`${base}/history/%E0%A4%A/x`)).status).toBe(299);
			const imp = '/history/SPX/classic_gex_full?source=service&day=2026-11-20';
			expect((await fetch(base + imp)).status).toBe(299);
			// A recorded day asked of the service is served from the recording: capped.
			const rec = '/history/SPX/classic_gex_full?source=service&day=2026-11-23';
			expect((await fetch(base + rec)).status).toBe(503);
			expect((await fetch(base + '/history/SPX/classic_gex_full?source=service')).status).toBe(503);
		} finally {
			held.forEach((release) => release());
		}
		// None of those took a slot: only stream answers are capped.
		expect(slotsSeen).toEqual([1, 0, 0, 0, 0]);
		expect(reachedKit).toEqual([
			'GET ' + path,
			'GET /history/SPX',
			'GET /history/SPX/x/y',
			'GET /history/%E0%A4%A/x',
			'GET /history/SPX/classic_gex_full?source=service&day=2026-11-20'
		]);
	});
});
