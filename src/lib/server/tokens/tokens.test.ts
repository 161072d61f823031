import { createHash } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useDatabases } from '../../../../tests/support/databases';
import { openDatabase } from '../db/index';
import { openRecords } from '../db/legacyImport';
import { formatLine, log, setLogSink } from '../log';
import { scrubTokens } from './presented';
import { RateLimiter } from './rateLimit';
import { TokenStore } from './tokenStore';

const engines = useDatabases();

describe.each(engines)('TokenStore on $engine', ({ target }) => {
	it('stores only the hash and shows the token once', async () => {
		const db = await openDatabase(await target());
		const store = new TokenStore(db);
		const { token, info } = await store.create('NinjaTrader desk');
		expect(token).toMatch(/^gxd_[A-Za-z0-9_-]{43}$/);
		const rows = JSON.stringify(await db.all(`SELECT * FROM tokens`));
		expect(rows).not.toContain(token.slice(4));
		expect(await store.list()).toEqual([{ ...info, lastUsedAt: null, lastUsedFrom: null }]);
		expect(JSON.stringify(await store.list())).not.toContain('hash');
		await db.close();
	});

	it('accepts a live token with its scope, records the last use, refuses others', async () => {
		const t = await target();
		const db = await openDatabase(t);
		let now = 1_000;
		const store = new TokenStore(db, () => now);
		const { token } = await store.create('sierra');
		expect(await store.check(token, 'feed', '192.168.1.20')).toMatchObject({ ok: true });
		expect(await store.check(token, 'mcp')).toMatchObject({ ok: false, error: /scope/ });
		expect(await store.check(token.slice(0, -1) + 'x', 'feed')).toMatchObject({ ok: false });
		expect(await store.check(undefined, 'feed')).toMatchObject({ ok: false, error: /required/ });
		// The first use was written at once; a later one within 10 s waits for flush().
		const other = new TokenStore(db);
		expect((await other.list())[0]).toMatchObject({
			lastUsedAt: 1_000,
			lastUsedFrom: '192.168.1.20'
		});
		now = 5_000;
		await store.check(token, 'feed', '10.0.0.9');
		expect((await other.list())[0]).toMatchObject({ lastUsedAt: 1_000 });
		await store.flush();
		expect((await other.list())[0]).toMatchObject({ lastUsedAt: 5_000, lastUsedFrom: '10.0.0.9' });
		await db.close();
	});

	it('a revoke by another process (the CLI) takes effect at the next check', async () => {
		const t = await target();
		const dashboardDb = await openDatabase(t);
		const dashboard = new TokenStore(dashboardDb);
		const { token, info } = await dashboard.create('bookmap');
		expect((await dashboard.check(token, 'feed')).ok).toBe(true);
		const cliDb = await openDatabase(t);
		expect(await new TokenStore(cliDb).revoke(info.id)).toMatchObject({ id: info.id });
		await cliDb.close();
		expect(await dashboard.check(token, 'feed')).toMatchObject({ ok: false, error: /revoked/ });
		expect(await dashboard.list()).toEqual([]);
		await dashboardDb.close();
	});

	it('revokes by a unique name, never by an ambiguous one', async () => {
		const db = await openDatabase(await target());
		const store = new TokenStore(db);
		await store.create('twin');
		await store.create('twin');
		const { info } = await store.create('single');
		expect(await store.revoke('twin')).toBeUndefined();
		expect(await store.revoke('single')).toBeDefined();
		expect((await store.list()).map((t) => t.name)).toEqual(['twin', 'twin']);
		expect(await store.revoke(info.id)).toBeUndefined();
		await db.close();
	});

	it('refuses an empty name and an unknown scope', async () => {
		const db = await openDatabase(await target());
		const store = new TokenStore(db);
		await expect(store.create('  ')).rejects.toThrow(/name/);
		await expect(store.create('x', ['admin' as never])).rejects.toThrow(/scope/);
		await db.close();
	});

	it("an older release's tokens.json is imported and its tokens still open the feed", async () => {
		const t = await target();
		// gxd_ token whose SHA-256 the old file holds (made by the release before the database).
		const token = 'gxd_' + 'q'.repeat(43);
		const hash = createHash('sha256').update(token).digest('hex');
		writeFileSync(
			join(t.dataDir, 'tokens.json'),
			JSON.stringify({
				version: 1,
				tokens: [
					{
						id: 'abcd1234',
						name: 'old desk',
						scopes: ['feed', 'mcp'],
						hash,
						createdAt: 5,
						lastUsedAt: 7,
						lastUsedFrom: '10.1.1.1'
					}
				]
			})
		);
		const db = await openRecords(t);
		const store = new TokenStore(db);
		expect(await store.list()).toEqual([
			{
				id: 'abcd1234',
				name: 'old desk',
				scopes: ['feed', 'mcp'],
				createdAt: 5,
				lastUsedAt: 7,
				lastUsedFrom: '10.1.1.1',
				// The implicit admin's until teams mode starts (users/owners.ts).
				owner: ''
			}
		]);
		expect(await store.check(token, 'mcp')).toMatchObject({ ok: true });
		expect(existsSync(join(t.dataDir, 'tokens.json'))).toBe(false);
		expect(existsSync(join(t.dataDir, 'tokens.json.imported'))).toBe(true);
		await db.close();
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
