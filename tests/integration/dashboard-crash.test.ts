/**
 * Nothing a client sends takes the dashboard process down. Every entry point of the built
 * dashboard (pages, the /api fast path, the login form, the /stream upgrade and any other
 * upgrade) gets malformed cookies, headers, percent-encodings, methods, bodies and upgrade
 * requests over raw TCP, each connection ended by a TCP reset; the process must still be running
 * and answering afterwards, and never print an uncaught error. `gexdeck_session=%` used to kill
 * it (URIError from the fast path's cookie parser).
 */
import fc from 'fast-check';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	logIn,
	rawRequest,
	startDashboard,
	startStubUpstream,
	type RunningDashboard,
	type StubUpstream
} from './dashboard-support';

let stub: StubUpstream;
let d: RunningDashboard;
let session = '';

beforeAll(async () => {
	stub = await startStubUpstream();
	d = await startDashboard({
		GEXDECK_PASSWORD: 'pw',
		...stub.env
	});
	session = (await logIn(d, 'pw')).session as string;
	expect(session).toBeTruthy();
}, 240_000);

afterAll(async () => {
	await d?.stop();
	await stub?.close();
});

/**
 * Send `bytes` on a fresh connection, wait up to `waitMs` for the first answer bytes, then reset
 * the connection (RST). Resolves with what was received.
 */
function sendAndReset(port: number, bytes: Buffer | string, waitMs: number): Promise<string> {
	return new Promise((resolve) => {
		const socket = connect(port, '127.0.0.1');
		let got = '';
		let done = false;
		const finish = () => {
			if (done) return;
			done = true;
			socket.resetAndDestroy();
			resolve(got);
		};
		socket.on('error', finish);
		socket.on('data', (c: Buffer) => {
			got += c.toString('latin1');
			if (got.includes('\r\n\r\n')) setTimeout(finish, 5);
		});
		socket.on('close', finish);
		socket.on('connect', () => {
			socket.write(bytes);
			setTimeout(finish, waitMs);
		});
	});
}

const cookies = (s: string) => [
	'gexdeck_session=%',
	'gexdeck_session=%E0%A4%A',
	'gexdeck_session=%%%%; gexdeck_csrf=%zz',
	`gexdeck_session=${s}; gexdeck_csrf=%`,
	`gexdeck_session="${s}`,
	'=; ;;; =x; gexdeck_session',
	`gexdeck_session=${'%'.repeat(6000)}`,
	'gexdeck_session=\u00ff\u00fe%ff',
	`gexdeck_session=${s}`
];

const paths = [
	'/api/tickers',
	'/api/%',
	'/api/%E0%A4%A',
	'/api/%00',
	'/api/..%2F..%2Fetc%2Fpasswd',
	'/api/research/%5ESPX/gex_oi',
	'/api/SPX/classic/gex_full?%=%&a=%ZZ',
	'/api/SPX/classic/gex_full/%FF%FE',
	`/api/${'x/'.repeat(3000)}`,
	'/%',
	'/%00',
	'//evil.example/',
	'/login?next=%0d%0aSet-Cookie:%20x=1',
	'/login?next=/%09/evil.example',
	'/login/classic/gex_full/__data.json',
	'/%/__data.json',
	'/%E0%A4%A/__data.json?x-sveltekit-invalidated=%',
	'/account',
	'/SPX/classic?x-sveltekit-invalidated=%',
	'/_app/%',
	'/_app/immutable/../../../etc/passwd',
	'*',
	'http://evil.example/api/tickers',
	'/stream'
];

const methods = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'TRACE', 'PATCH', 'FOO', 'get'];

function request(method: string, path: string, headers: Record<string, string>, body = ''): string {
	const lines = [`${method} ${path} HTTP/1.1`];
	for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
	return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** The corpus: every entry point crossed with malformed parts. */
function corpus(port: number): (string | Buffer)[] {
	const host = `127.0.0.1:${port}`;
	const out: (string | Buffer)[] = [];
	for (const path of paths) {
		for (const cookie of cookies(session)) {
			out.push(request('GET', path, { host, cookie }));
		}
		for (const method of methods) {
			out.push(request(method, path, { host, cookie: `gexdeck_session=${session}` }));
		}
	}
	const base = {
		host,
		cookie: `gexdeck_session=${session}; gexdeck_csrf=t`,
		origin: `http://${host}`
	};
	// Hosts and origins.
	for (const h of ['', '%', '[::1', 'evil.example:1', `${host}, evil.example`, 'a'.repeat(5000)]) {
		out.push(request('GET', '/api/tickers', { ...base, host: h }));
		out.push(request('GET', '/account', { ...base, host: h }));
	}
	for (const origin of ['%', 'null', 'http://[::1', 'javascript:alert(1)', '\u00ff']) {
		out.push(request('POST', '/account?/switchAccount', { ...base, origin }));
	}
	out.push(`GET /api/tickers HTTP/1.0\r\n\r\n`);
	out.push(`GET /api/tickers HTTP/1.1\r\nhost: ${host}\r\nhost: evil.example\r\n\r\n`);
	// Bodies of the login form and other actions.
	const form = { ...base, 'content-type': 'application/x-www-form-urlencoded' };
	for (const body of [
		'%',
		'csrf=t&password=%E0%A4%A',
		'csrf=t&next=%0d%0a',
		'&&&===',
		'x'.repeat(70_000)
	]) {
		out.push(
			request('POST', '/login?/login', { ...form, 'content-length': String(body.length) }, body)
		);
		out.push(
			request(
				'POST',
				'/account?/saveKeys',
				{ ...form, 'content-length': String(body.length) },
				body
			)
		);
	}
	const multipart = { ...base, 'content-type': 'multipart/form-data; boundary=zz' };
	for (const body of ['--zz\r\ngarbage', '--zz--', '--yy\r\n\r\n\r\n']) {
		out.push(
			request(
				'POST',
				'/login?/login',
				{ ...multipart, 'content-length': String(body.length) },
				body
			)
		);
	}
	out.push(request('POST', '/login?/login', { ...form, 'content-length': '100000' }, 'csrf=t'));
	out.push(request('POST', '/login?/login', { ...form, 'content-length': '-1' }, 'csrf=t'));
	out.push(
		request('POST', '/login?/login', { ...form, 'transfer-encoding': 'chunked' }, 'zz\r\nxx')
	);
	out.push(request('POST', '/api/tickers', { ...form, 'content-length': '5' }, 'abcde'));
	out.push(request('POST', '/login?/nope', { ...form, 'content-length': '1' }, 'a'));
	// Upgrade requests: /stream and elsewhere, good and bad handshakes, then garbage frames.
	const up = {
		connection: 'Upgrade',
		upgrade: 'websocket',
		'sec-websocket-version': '13',
		'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ=='
	};
	for (const path of ['/stream', '/stream?x=%', '/other', '/api/tickers', '/%', '/login']) {
		for (const cookie of cookies(session)) {
			out.push(request('GET', path, { ...up, host, cookie }));
		}
		out.push(
			request('GET', path, {
				...up,
				host,
				cookie: `gexdeck_session=${session}`,
				'sec-websocket-key': ''
			})
		);
		out.push(
			request('GET', path, {
				...up,
				host,
				cookie: `gexdeck_session=${session}`,
				'sec-websocket-version': '99'
			})
		);
		out.push(
			request('GET', path, { ...up, host: 'evil.example', cookie: `gexdeck_session=${session}` })
		);
		out.push(
			request('GET', path, { ...up, host, origin: '%', cookie: `gexdeck_session=${session}` })
		);
		out.push(request('POST', path, { ...up, host, cookie: `gexdeck_session=${session}` }));
	}
	out.push(
		Buffer.concat([
			Buffer.from(request('GET', '/stream', { ...up, host, cookie: `gexdeck_session=${session}` })),
			Buffer.from([0x81, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x01])
		])
	);
	// Not HTTP at all.
	out.push(Buffer.from([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03, 0x03]));
	out.push(Buffer.from('\x00\x01\x02\xff\r\n\r\n'));
	out.push('GET / HTTP/1.1\r\nx: \u0000\r\n\r\n');
	out.push(`GET /${'a'.repeat(100_000)} HTTP/1.1\r\nhost: ${host}\r\n\r\n`);
	return out;
}

describe('the dashboard process survives hostile input', () => {
	it(
		'answers every malformed request (never 500 for a refusal) and is still up after TCP resets',
		{ timeout: 240_000 },
		async () => {
			const inputs = corpus(d.port);
			const statuses = new Map<number, number>();
			// A few at a time, alternating between waiting for the answer and resetting at once.
			for (let i = 0; i < inputs.length; i += 8) {
				const batch = inputs.slice(i, i + 8);
				const answers = await Promise.all(
					batch.map((bytes, j) => sendAndReset(d.port, bytes, (i + j) % 3 === 0 ? 0 : 300))
				);
				for (const a of answers) {
					const m = /^HTTP\/1\.1 (\d{3})/.exec(a);
					if (m) statuses.set(Number(m[1]), (statuses.get(Number(m[1])) ?? 0) + 1);
				}
				expect(d.proc.exitCode, `after input #${i}`).toBeNull();
			}
			// The process is up and serves a fresh, valid request on every entry point.
			expect((await rawRequest(d.port, 'GET', '/login')).status).toBe(200);
			const cookie = `gexdeck_session=${session}`;
			expect((await rawRequest(d.port, 'GET', '/api/tickers', { cookie })).status).toBe(200);
			expect((await rawRequest(d.port, 'GET', '/account', { cookie })).status).toBe(200);
			expect(d.proc.exitCode).toBeNull();
			expect(d.output()).not.toMatch(
				/URIError|Uncaught|uncaughtException|ERR_UNHANDLED|unhandled rejection/
			);
			// Many answers came back (the corpus exercised the handlers, not just the parser).
			expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(200);
		}
	);

	it('answers specific bad inputs with a client error and a clear body, not 500', async () => {
		const cookie = `gexdeck_session=${session}`;
		for (const path of [
			'/api/research/%5ESPX/gex_oi',
			'/api/%',
			'/api/%E0%A4%A',
			'/api/SPX/classic/%FF'
		]) {
			const res = await rawRequest(d.port, 'GET', path, { cookie });
			expect(res.status, path).toBeLessThan(500);
			expect(res.body, path).not.toMatch(/Proxy failure|RangeError|at .*\.js/);
		}
	});

	it('never answers 500 to arbitrary /api paths, queries and cookies (fast-check, real socket)', async () => {
		const piece = fc.oneof(
			fc.constantFrom('%', '%E0', '%A4%A', '%ZZ', '..', '/', '^', '%5E', '%2F', '%00', '~'),
			fc.webSegment(),
			fc.constantFrom('SPX', 'classic', 'state', 'gex_full', 'research', 'hist', 'eod', 'majors')
		);
		const printable = fc.string({
			unit: fc.integer({ min: 0x20, max: 0x7e }).map(String.fromCharCode)
		});
		await fc.assert(
			fc.asyncProperty(
				fc.array(piece, { maxLength: 8 }),
				fc.array(piece, { maxLength: 4 }),
				printable,
				fc.boolean(),
				async (parts, query, cookieText, signedIn) => {
					const path = `/api/${parts.join('')}?${query.join('&')}`;
					const cookie = signedIn
						? `gexdeck_session=${session}; x=${cookieText}`
						: `gexdeck_session=${cookieText}`;
					const res = await rawRequest(d.port, 'GET', path, { cookie });
					expect(res.status, path).toBeGreaterThanOrEqual(200);
					expect(res.status, path).toBeLessThan(500);
				}
			),
			{ numRuns: 300 }
		);
		expect(d.proc.exitCode).toBeNull();
	});
});
