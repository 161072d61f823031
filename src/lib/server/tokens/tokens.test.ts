import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatLine, log, setLogSink } from '../log';
import { scrubTokens } from './presented';
import { RateLimiter } from './rateLimit';
import { TokenStore } from './tokenStore';

const dir = () => mkdtempSync(join(tmpdir(), 'gexdeck-tokens-'));

describe('TokenStore', () => {
	it('stores only the hash, in a 0600 file, and shows the token once', () => {
		const store = TokenStore.inDataDir(dir());
		const { token, info } = store.create('NinjaTrader desk');
		expect(token).toMatch(/^gxd_[A-Za-z0-9_-]{43}$/);
		const text = readFileSync(store.path, 'utf8');
		expect(text).not.toContain(token.slice(4));
		expect(statSync(store.path).mode & 0o777).toBe(0o600);
		expect(store.list()).toEqual([{ ...info, lastUsedAt: null, lastUsedFrom: null }]);
		expect(JSON.stringify(store.list())).not.toContain('hash');
	});

	it('accepts a live token with its scope, records the last use, refuses others', () => {
		let now = 1_000;
		const store = new TokenStore(join(dir(), 'tokens.json'), () => now);
		const { token } = store.create('sierra');
		expect(store.check(token, 'feed', '192.168.1.20')).toMatchObject({ ok: true });
		expect(store.check(token, 'mcp')).toMatchObject({ ok: false, error: /scope/ });
		expect(store.check(token.slice(0, -1) + 'x', 'feed')).toMatchObject({ ok: false });
		expect(store.check(undefined, 'feed')).toMatchObject({ ok: false, error: /required/ });
		now = 20_000;
		store.flush();
		const again = new TokenStore(store.path);
		expect(again.list()[0]).toMatchObject({ lastUsedAt: 1_000, lastUsedFrom: '192.168.1.20' });
	});

	it('a revoke by another process (the CLI) takes effect at the next check', () => {
		const path = join(dir(), 'tokens.json');
		const dashboard = new TokenStore(path);
		const { token, info } = dashboard.create('bookmap');
		expect(dashboard.check(token, 'feed').ok).toBe(true);
		expect(new TokenStore(path).revoke(info.id)).toBe(true);
		expect(dashboard.check(token, 'feed')).toMatchObject({ ok: false, error: /revoked/ });
		expect(dashboard.list()).toEqual([]);
	});

	it('refuses an empty name and an unknown scope', () => {
		const store = TokenStore.inDataDir(dir());
		expect(() => store.create('  ')).toThrow(/name/);
		expect(() => store.create('x', ['admin' as never])).toThrow(/scope/);
	});
});

describe('RateLimiter', () => {
	it('lets a burst through, then answers with the seconds to wait', () => {
		let now = 0;
		const limiter = new RateLimiter({ burst: 3, perSecond: 1 }, () => now);
		for (let i = 0; i < 3; i++) expect(limiter.take('a').ok).toBe(true);
		expect(limiter.take('a')).toEqual({ ok: false, retryAfterSeconds: 1 });
		expect(limiter.take('b').ok).toBe(true);
		now = 1000;
		expect(limiter.take('a').ok).toBe(true);
	});
});

describe('token scrubbing', () => {
	it('removes tokens from URLs, Bearer headers and bare token text', () => {
		expect(scrubTokens('/feed/v1/levels/SPX.csv?token=gxd_abc-_1&x=1')).toBe(
			'/feed/v1/levels/SPX.csv?token=[redacted]&x=1'
		);
		expect(scrubTokens('authorization: Bearer abc.def')).toBe('authorization: Bearer [redacted]');
		expect(scrubTokens('saw gxd_Zz09_- here')).toBe('saw gxd_[redacted] here');
	});

	it('every log line is scrubbed, message and fields', () => {
		const lines: string[] = [];
		const previous = setLogSink({ out: (l) => lines.push(l), err: (l) => lines.push(l) });
		try {
			log.warn('GET /feed/v1/levels/SPX?token=secret1', { url: '/x?a=1&token=secret2' });
			log.forward('service', 'Bearer secret3');
		} finally {
			setLogSink(previous);
		}
		expect(lines.join('\n')).not.toMatch(/secret/);
		expect(formatLine('text', 'info', 'm', { url: '?token=x' })).toContain('token=x');
	});
});
