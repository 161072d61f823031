/**
 * The /api fast path over a real socket: a proxy that throws (synchronously, by rejecting, or by
 * answering a header node refuses to send) costs that one request a 500 with a generic body and
 * a log line; the server goes on answering.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const behaviour = vi.hoisted(() => ({ mode: 'ok' as 'ok' | 'throw' | 'reject' | 'bad-header' }));

vi.mock('$env/dynamic/private', () => ({ env: { HOST: '127.0.0.1' } }));
vi.mock('./services', () => ({
	upstreamProxy: () => ({
		handle: () => {
			switch (behaviour.mode) {
				case 'throw':
					throw new TypeError('internal detail that must not reach the browser');
				case 'reject':
					return Promise.reject(new RangeError('internal detail that must not reach the browser'));
				case 'bad-header':
					return Promise.resolve({ status: 200, headers: { 'x-bad': 'a\r\nb' }, body: '{}' });
				default:
					return Promise.resolve({
						status: 200,
						headers: { 'content-type': 'application/json' },
						body: '{"ok":true}'
					});
			}
		}
	})
}));

const { handleFastApi } = await import('./fastApi');
const { setLogSink } = await import('./log');

let server: Server;
let base: string;

beforeAll(async () => {
	server = createServer((req, res) => {
		if (!handleFastApi(req, res)) res.writeHead(404).end();
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('fast /api path', () => {
	it('turns every handler failure into a 500 for that request and a log line', async () => {
		const log = vi.fn<(line: string) => void>();
		const previous = setLogSink({ out: () => undefined, err: log });
		try {
			for (const mode of ['throw', 'reject', 'bad-header'] as const) {
				behaviour.mode = mode;
				log.mockClear();
				const res = await fetch(`${base}/api/tickers`);
				expect(res.status, mode).toBe(500);
				const text = await res.text();
				expect(JSON.parse(text).error, mode).toMatch(/Internal error/);
				expect(text, mode).not.toContain('internal detail');
				expect(log, mode).toHaveBeenCalled();
			}
			behaviour.mode = 'ok';
			const ok = await fetch(`${base}/api/tickers`);
			expect(ok.status).toBe(200);
			expect(await ok.json()).toEqual({ ok: true });
		} finally {
			behaviour.mode = 'ok';
			setLogSink(previous);
		}
	});

	it('ignores a malformed session cookie and answers a malformed path 400', async () => {
		const res = await fetch(`${base}/api/tickers`, { headers: { cookie: 'gexdeck_session=%' } });
		expect(res.status).toBe(200); // no password configured: the cookie is simply ignored
		const malformed = await fetch(`${base}/api/%E0%A4%A`);
		expect(malformed.status).toBe(400);
	});
});
