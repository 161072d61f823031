import type { IncomingMessage } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HttpError } from './respond';
import { requestOrigin, requireOwnHost } from './requestOrigin';

const req = (host?: string) => ({ headers: host === undefined ? {} : { host } }) as IncomingMessage;

describe('requestOrigin', () => {
	it('uses the configured public origin, else a plain Host, else localhost', () => {
		expect(requestOrigin(req('evil'), 'https://gex.example')).toBe('https://gex.example');
		expect(requestOrigin(req('127.0.0.1:8787'), undefined)).toBe('http://127.0.0.1:8787');
		expect(requestOrigin(req('[::1]:8787'), undefined)).toBe('http://[::1]:8787');
		expect(requestOrigin(req('api.example.com'), undefined)).toBe('http://api.example.com');
		expect(requestOrigin(req(), undefined)).toBe('http://localhost');
	});

	it('refuses a Host that would break a Location or URL with 400', () => {
		for (const host of ['\u0000', 'a b', 'a/b', 'user@host', 'a\r\nx: y', 'host:port', '.0'])
			expect(() => requestOrigin(req(host), undefined), host).toThrow(HttpError);
	});

	it('returns only origins that parse as a bare URL origin and are safe in a header', () => {
		fc.assert(
			fc.property(fc.string({ maxLength: 40 }), (host) => {
				let origin: string;
				try {
					origin = requestOrigin(req(host), undefined);
				} catch (err) {
					expect(err).toBeInstanceOf(HttpError);
					return;
				}
				const url = new URL(origin);
				expect(url.pathname).toBe('/');
				expect(url.username + url.password + url.search + url.hash).toBe('');
				expect(origin).toMatch(/^[\x21-\x7e]+$/);
			})
		);
	});
});

describe('requireOwnHost (negotiate)', () => {
	it('accepts IP literals, localhost and the public origin; refuses other names with 421', () => {
		for (const host of [
			undefined,
			'127.0.0.1:8787',
			'[::1]:1',
			'10.0.0.5',
			'localhost:3',
			'a.localhost'
		])
			expect(() => requireOwnHost(req(host), undefined), host).not.toThrow();
		expect(() => requireOwnHost(req('gex.example:443'), 'https://gex.example')).not.toThrow();
		for (const host of ['evil.example:8787', 'localhost.evil.example', 'gex.example'])
			expect(() => requireOwnHost(req(host), undefined), host).toThrow(
				expect.objectContaining({ status: 421 })
			);
	});
});
