import { afterEach, describe, expect, it } from 'vitest';
import { useDatabases } from '../../../../tests/support/databases';
import { openDatabase } from '../db/index';
import { TokenStore } from '../tokens/tokenStore';
import { audit, AUDIT_RETENTION, auditEntries, pruneAudit, setAuditRetention } from './audit';

const engines = useDatabases();
const DAY = 86_400_000;

afterEach(() => setAuditRetention(undefined));

describe.each(engines)('the audit log on $engine', ({ target }) => {
	it('keeps the newest entries past its bound, pruned as it is written', async () => {
		const db = await openDatabase(await target());
		setAuditRetention({ maxEntries: 10, maxAgeMs: 365 * DAY, every: 1 });
		const now = Date.now();
		// 25 entries, the last 13 in one millisecond: the bound falls among them, and ties are cut
		// by id (the log's order), so exactly 10 stay.
		for (let i = 0; i < 25; i++) {
			await audit(db, {
				actor: 'root',
				action: 'sign-in',
				detail: `#${i}`,
				at: now - 1_000 + Math.min(i, 12)
			});
			expect((await auditEntries(db, 1_000)).length).toBe(Math.min(i + 1, 10));
		}
		const kept = (await auditEntries(db, 1_000)).map((e) => Number(e.detail.slice(1)));
		expect(kept.every((i) => i >= 12)).toBe(true);
		await db.close();
	});

	it('prunes by count only every `every` entries, and drops entries past the age', async () => {
		const db = await openDatabase(await target());
		setAuditRetention({ maxEntries: 5, maxAgeMs: 30 * DAY, every: 4 });
		const now = Date.now();
		const add = (i: number, at = now + i) =>
			audit(db, { actor: 'root', action: 'sign-in', detail: `#${i}`, at });
		for (let i = 0; i < 7; i++) await add(i);
		// Pruned at the 4th write (4 entries), not yet at the 7th.
		expect((await auditEntries(db)).length).toBe(7);
		await add(7);
		expect((await auditEntries(db)).map((e) => e.detail)).toEqual(['#7', '#6', '#5', '#4', '#3']);
		await add(100, now - 31 * DAY);
		expect(await pruneAudit(db, { maxEntries: 100, maxAgeMs: 30 * DAY, every: 1 })).toBe(1);
		expect((await auditEntries(db)).map((e) => e.detail)).not.toContain('#100');
		await db.close();
	});

	it('has the documented default bound', () => {
		expect(AUDIT_RETENTION).toEqual({ maxEntries: 100_000, maxAgeMs: 400 * DAY, every: 100 });
	});

	it('audits a token’s use from a new address once, with the address and never the token', async () => {
		const t = await target();
		const db = await openDatabase(t);
		const store = new TokenStore(db);
		const { token, info } = await store.create('sierra desk');
		const uses = async () =>
			(await auditEntries(db)).filter((e) => e.action === 'token used from a new address');
		for (const from of ['10.0.0.5', '10.0.0.5', '192.168.1.9', '10.0.0.5']) {
			expect((await store.check(token, 'feed', from)).ok).toBe(true);
		}
		expect((await store.check(token, 'feed')).ok).toBe(true); // no address: nothing to say
		const seen = await uses();
		expect(seen.map((e) => e.address).sort()).toEqual(['10.0.0.5', '192.168.1.9']);
		expect(seen[0]).toMatchObject({
			actor: 'token sierra desk',
			detail: `token "sierra desk" (${info.id}) of the single-user admin first used from 192.168.1.9`
		});
		// Another process (a replica, or after a restart) knows the pair from the table.
		const other = await openDatabase(t);
		expect((await new TokenStore(other).check(token, 'feed', '10.0.0.5')).ok).toBe(true);
		expect(await uses()).toHaveLength(2);
		// A refused token is no use; a revoked token's addresses go with it.
		expect((await store.check(`${token}x`, 'feed', '172.16.0.1')).ok).toBe(false);
		expect(await uses()).toHaveLength(2);
		await store.revoke(info.id);
		expect(await db.all(`SELECT * FROM token_addresses`)).toEqual([]);
		const log = JSON.stringify(await auditEntries(db));
		expect(log).not.toContain(token.slice(4));
		await other.close();
		await db.close();
	});
});
