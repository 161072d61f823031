/**
 * Issue 29: integration tokens belong to users, on both engines. A trader lists and revokes only
 * their own (another's id is as unknown as none), an admin sees and revokes every token; a token
 * acts with its owner's role and stops at the next check once its owner is disabled or made a
 * viewer; the tokens made before the owners' migration step become the first admin's.
 */
import { describe, expect, it } from 'vitest';
import { useDatabases } from '../../../../tests/support/databases';
import { openDatabase, type Database } from '../db/index';
import { MIGRATIONS } from '../db/migrations';
import { UserStore } from '../users/userStore';
import { TokenStore } from './tokenStore';

const engines = useDatabases();
const PASSWORD = 'a long password';

async function team(db: Database) {
	const users = new UserStore(db);
	const admin = await users.add('ann', 'admin', PASSWORD, 1);
	const trader = await users.add('tom', 'trader', PASSWORD, 2);
	const other = await users.add('tia', 'trader', PASSWORD, 3);
	return { users, admin, trader, other };
}

describe.each(engines)('token owners on $engine', ({ target }) => {
	it('a trader sees and revokes only their own; an admin every one, with its owner', async () => {
		const db = await openDatabase(await target());
		const { admin, trader, other } = await team(db);
		const store = new TokenStore(db);
		const mine = await store.create('tom desk', ['feed'], trader.id);
		const theirs = await store.create('tia desk', ['feed', 'mcp'], other.id);
		const admins = await store.create('ann desk', ['mcp'], admin.id);

		expect((await store.list(trader)).map((t) => t.name)).toEqual(['tom desk']);
		// (Tokens made in the same millisecond have no order between them: compared sorted.)
		expect((await store.list(admin)).map((t) => [t.name, t.owner]).sort()).toEqual([
			['ann desk', admin.id],
			['tia desk', other.id],
			['tom desk', trader.id]
		]);
		// Another trader's token: unknown by id and by name, and it keeps working.
		expect(await store.revoke(theirs.info.id, trader)).toBeUndefined();
		expect(await store.revoke('tia desk', trader)).toBeUndefined();
		expect(await store.check(theirs.token, 'feed')).toMatchObject({ ok: true, role: 'trader' });
		expect(await store.revoke(mine.info.id, trader)).toMatchObject({ owner: trader.id });
		expect(await store.check(mine.token, 'feed')).toMatchObject({ ok: false });
		// An admin revokes anyone's.
		expect(await store.revoke(theirs.info.id, admin)).toMatchObject({ name: 'tia desk' });
		expect(await store.check(admins.token, 'mcp')).toMatchObject({ ok: true, role: 'admin' });
		await db.close();
	});

	it("acts with its owner's role: disabled or a viewer stops it at once", async () => {
		const t = await target();
		const db = await openDatabase(t);
		const { users, trader } = await team(db);
		const dashboard = new TokenStore(db);
		const { token, info } = await dashboard.create('tom desk', ['feed', 'mcp'], trader.id);
		expect(await dashboard.check(token, 'feed')).toMatchObject({ ok: true, role: 'trader' });
		expect(await dashboard.liveIds()).toEqual(new Set([info.id]));

		// Another process (the CLI, /admin on another replica) disables the owner.
		const cli = await openDatabase(t);
		await new UserStore(cli).setDisabled('tom', true);
		expect(await dashboard.check(token, 'feed')).toMatchObject({ ok: false, error: /disabled/ });
		expect(await dashboard.liveIds()).toEqual(new Set());
		await new UserStore(cli).setDisabled('tom', false);
		expect(await dashboard.check(token, 'mcp')).toMatchObject({ ok: true });
		await users.setRole('tom', 'viewer');
		expect(await dashboard.check(token, 'mcp')).toMatchObject({ ok: false, error: /viewer/ });
		await users.setRole('tom', 'admin');
		expect(await dashboard.check(token, 'mcp')).toMatchObject({ ok: true, role: 'admin' });
		await cli.close();
		await db.close();
	});

	it("the implicit admin's token works until the dashboard has users", async () => {
		const db = await openDatabase(await target());
		const store = new TokenStore(db);
		const { token } = await store.create('before teams');
		expect(await store.check(token, 'feed')).toMatchObject({ ok: true, role: 'admin' });
		await new UserStore(db).add('tom', 'trader', PASSWORD);
		expect(await store.check(token, 'feed')).toMatchObject({ ok: false, error: /no owner/ });
		await db.close();
	});

	it('tokens made before the owners step become the first admin’s', async () => {
		const t = await target();
		const step = MIGRATIONS.findIndex((m) => m.summary.startsWith('owners of integration tokens'));
		expect(step).toBeGreaterThan(0);
		const before = await openDatabase(t, MIGRATIONS.slice(0, step));
		const users = new UserStore(before);
		await users.add('zed', 'trader', PASSWORD, 1);
		await users.add('old', 'admin', PASSWORD, 2);
		const admin = await users.add('ann', 'admin', PASSWORD, 3);
		await users.setDisabled('old', true);
		await before.run(
			`INSERT INTO tokens (id, name, scopes, hash, created_at) VALUES ('t1', 'desk', 'feed', 'h', 1)`
		);
		await before.close();
		const after = await openDatabase(t);
		expect(await new TokenStore(after).list()).toMatchObject([{ id: 't1', owner: admin.id }]);
		await after.close();
	});
});
