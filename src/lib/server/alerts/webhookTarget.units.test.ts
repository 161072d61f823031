/**
 * The parts of webhookTarget.ts a page or a delivery queue relies on, each on its own and fast:
 * every socket and TLS error code names its category (and whether a retry may help), the
 * resolver's failures, an IPv6 literal taken without a lookup, and the request itself against a
 * loopback receiver on the allowlist (method, headers, a timeout, https never spoken as http).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllowList } from './addressPolicy';
import {
	errorCategory,
	postWebhook,
	resolveTarget,
	WebhookError,
	type Resolver
} from './webhookTarget';

const NONE = parseAllowList(undefined);
const LOOPBACK = parseAllowList('127.0.0.1');
const refusing: Resolver = () => Promise.reject(new Error('no lookup expected'));
const answering =
	(...addresses: string[]): Resolver =>
	() =>
		Promise.resolve(
			addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
		);

const fault = (code: string | undefined) => Object.assign(new Error('x'), { code });
const category = (e: unknown) => {
	const c = errorCategory(e);
	return [c.category, c.retryable];
};

describe('errorCategory', () => {
	it('names each socket error by what happened, retryable', () => {
		const table: [string, string][] = [
			['ECONNREFUSED', 'refused'],
			['ETIMEDOUT', 'timed out'],
			['ABORT_ERR', 'timed out'],
			['ENOTFOUND', 'name not resolved'],
			['EAI_AGAIN', 'name not resolved'],
			['EHOSTUNREACH', 'unreachable'],
			['ENETUNREACH', 'unreachable'],
			['EADDRNOTAVAIL', 'unreachable'],
			['ECONNRESET', 'connection reset'],
			['EPIPE', 'connection reset'],
			['EPROTO', 'TLS error'],
			['ERR_TLS_CERT_ALTNAME_INVALID', 'TLS error'],
			['ERR_SSL_WRONG_VERSION_NUMBER', 'TLS error'],
			['CERT_HAS_EXPIRED', 'TLS error'],
			['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'TLS error'],
			['DEPTH_ZERO_SELF_SIGNED_CERT', 'TLS error'],
			['SELF_SIGNED_CERT_IN_CHAIN', 'TLS error'],
			['HOSTNAME_MISMATCH', 'TLS error'],
			['EMFILE', 'failed']
		];
		for (const [code, name] of table)
			expect([code, ...category(fault(code))]).toEqual([code, name, true]);
	});

	it('matches TLS codes by their start only, and EPROTO exactly', () => {
		expect(category(fault('X_ERR_TLS_FOO'))).toEqual(['failed', true]);
		expect(category(fault('EPROTONOSUPPORT'))).toEqual(['failed', true]);
		expect(category(fault('XEPROTO'))).toEqual(['failed', true]);
	});

	it('answers "failed" for anything without a code, and passes its own errors through', () => {
		expect(category(undefined)).toEqual(['failed', true]);
		expect(category(null)).toEqual(['failed', true]);
		expect(category(fault(undefined))).toEqual(['failed', true]);
		const own = new WebhookError('blocked address', false);
		expect(errorCategory(own)).toBe(own);
	});
});

describe('resolveTarget', () => {
	it('takes an address literal as it is, IPv6 in brackets included, without a lookup', async () => {
		const v6 = await resolveTarget(new URL('http://[2606:4700::1111]/'), NONE, refusing);
		expect(v6).toEqual({ address: '2606:4700::1111', family: 6 });
		const v4 = await resolveTarget(new URL('http://8.8.8.8/'), NONE, refusing);
		expect(v4).toEqual({ address: '8.8.8.8', family: 4 });
	});

	it('asks the resolver for a name, and connects to its first address', async () => {
		const asked: string[] = [];
		const resolve: Resolver = (host) => {
			asked.push(host);
			return answering('93.184.216.34', '2606:2800:220:1::1')(host);
		};
		const got = await resolveTarget(new URL('https://hooks.example.com/x'), NONE, resolve);
		expect(got).toEqual({ address: '93.184.216.34', family: 4 });
		expect(asked).toEqual(['hooks.example.com']);
	});

	it('reads a failed or empty lookup as "name not resolved", worth a retry', async () => {
		const url = new URL('https://hooks.example.com/');
		for (const resolve of [refusing, answering()]) {
			const e = await resolveTarget(url, NONE, resolve).catch((err: unknown) => err);
			expect(e).toBeInstanceOf(WebhookError);
			expect([(e as WebhookError).category, (e as WebhookError).retryable]).toEqual([
				'name not resolved',
				true
			]);
		}
	});

	it('refuses a name with one private address among public ones, for good (no retry)', async () => {
		const e = await resolveTarget(
			new URL('https://hooks.example.com/'),
			NONE,
			answering('93.184.216.34', '10.0.0.7')
		).catch((err: unknown) => err);
		expect([(e as WebhookError).category, (e as WebhookError).retryable]).toEqual([
			'blocked address',
			false
		]);
		// The same name on the allowlist gets through.
		const allowed = await resolveTarget(
			new URL('https://hooks.example.com/'),
			parseAllowList('10.0.0.0/8'),
			answering('93.184.216.34', '10.0.0.7')
		);
		expect(allowed.address).toBe('93.184.216.34');
	});
});

describe('postWebhook against a loopback receiver on the allowlist', () => {
	let server: Server;
	let port: number;
	let seen: { method?: string; headers: IncomingMessage['headers']; body: string }[] = [];
	let hang = false;

	beforeAll(async () => {
		server = createServer((req, res) => {
			let body = '';
			req.on('data', (c: Buffer) => (body += c.toString()));
			req.on('end', () => {
				seen.push({ method: req.method, headers: req.headers, body });
				if (!hang) res.writeHead(202).end('ignored');
			});
		});
		await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
		port = (server.address() as AddressInfo).port;
	});
	afterAll(() => {
		server.closeAllConnections();
		return new Promise((r) => server.close(r));
	});

	const post = (scheme: string, timeoutMs = 5000) =>
		postWebhook(new URL(`${scheme}://127.0.0.1:${port}/hook`), {
			headers: { 'content-type': 'application/json', 'x-gexdeck-test': '1' },
			body: '{"a":"é"}',
			timeoutMs,
			allow: LOOPBACK
		});

	it('POSTs the body with its headers and byte length, and resolves with the status', async () => {
		seen = [];
		expect(await post('http')).toBe(202);
		expect(seen).toHaveLength(1);
		expect(seen[0].method).toBe('POST');
		expect(seen[0].body).toBe('{"a":"é"}');
		expect(seen[0].headers['x-gexdeck-test']).toBe('1');
		expect(seen[0].headers['content-length']).toBe(String(Buffer.byteLength('{"a":"é"}')));
	});

	it('connects a name to the address its check resolved, keeping the name as the Host', async () => {
		seen = [];
		const status = await postWebhook(new URL(`http://receiver.test:${port}/hook`), {
			headers: {},
			body: 'x',
			timeoutMs: 5000,
			allow: parseAllowList('receiver.test'),
			resolve: answering('127.0.0.1')
		});
		expect(status).toBe(202);
		expect(seen.map((r) => r.headers.host)).toEqual([`receiver.test:${port}`]);
	});

	it('speaks TLS to an https URL: a plain-http receiver is a TLS error, never a plain request', async () => {
		seen = [];
		const e = await post('https').catch((err: unknown) => err);
		expect((e as WebhookError).category).toBe('TLS error');
		expect(seen).toHaveLength(0);
	});

	it('gives up after the timeout as "timed out", worth a retry', async () => {
		hang = true;
		try {
			const e = await post('http', 150).catch((err: unknown) => err);
			expect([(e as WebhookError).category, (e as WebhookError).retryable]).toEqual([
				'timed out',
				true
			]);
		} finally {
			hang = false;
		}
	});
});
