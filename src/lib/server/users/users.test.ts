import { describe, expect, it, vi } from 'vitest';
import { useDatabases } from '../../../../tests/support/databases';
import { createSession, dropSessions, onSessionsEnded, sessionKey, sessionOf } from '../auth';
import { openDatabase } from '../db/index';
import { audit, auditEntries, auditJsonLines } from './audit';
import { main } from './cli';
import {
	adoptSession,
	followSessions,
	persistSession,
	stopFollowingSessions,
	syncSessions
} from './sessionStore';
import { addUser, changeRole, refreshTeamsMode, setDisabled, startTeams, teamsMode } from './teams';
import { UserStore } from './userStore';

const engines = useDatabases();
const ME = { name: 'root', address: '127.0.0.1' };

describe.each(engines)('users on $engine', ({ target }) => {
	it('keeps only an Argon2id hash and verifies name and password', async () => {
		const db = await openDatabase(await target());
		const store = new UserStore(db);
		await store.add('alice', 'trader', 'correct horse');
		const row = await db.get(`SELECT password_hash FROM users WHERE name = ?`, ['alice']);
		expect(String(row?.password_hash)).toMatch(/^\$argon2id\$/);
		expect(JSON.stringify(row)).not.toContain('correct horse');
		expect(await store.verify('alice', 'correct horse')).toMatchObject({ role: 'trader' });
		expect(await store.verify('alice', 'wrong horse')).toBeUndefined();
		expect(await store.verify('nobody', 'correct horse')).toBeUndefined();
		await expect(store.add('alice', 'viewer', 'another one')).rejects.toThrow(/already/);
		await expect(store.add('bob', 'viewer', 'short')).rejects.toThrow(/8 characters/);
		await db.close();
	});

	it('ends a user’s sessions at once on disable and role change, and keeps one admin', async () => {
		const db = await openDatabase(await target());
		const admin = await addUser(db, ME, 'root', 'admin', 'root password');
		const bob = await addUser(db, ME, 'bob', 'trader', 'bob password');
		const ended: string[] = [];
		const off = onSessionsEnded((keys) => ended.push(...keys));
		const who = { id: bob.id, name: bob.name, role: bob.role };
		const one = createSession(Date.now(), who);
		const two = createSession(Date.now(), who);
		await persistSession(db, one, who, '10.0.0.2');
		await persistSession(db, two, who, '10.0.0.3');
		await changeRole(db, ME, 'bob', 'viewer');
		expect(sessionOf(one)).toBeUndefined();
		expect(sessionOf(two)).toBeUndefined();
		expect(ended).toEqual(expect.arrayContaining([sessionKey(one), sessionKey(two)]));
		expect(await db.all(`SELECT * FROM sessions`)).toEqual([]);
		const three = createSession(Date.now(), { ...who, role: 'viewer' });
		await persistSession(db, three, { ...who, role: 'viewer' }, null);
		await setDisabled(db, ME, 'bob', true);
		expect(sessionOf(three)).toBeUndefined();
		expect(await new UserStore(db).verify('bob', 'bob password')).toBeUndefined();
		await expect(setDisabled(db, ME, 'root', true)).rejects.toThrow(/last enabled admin/);
		await expect(changeRole(db, ME, 'root', 'viewer')).rejects.toThrow(/last enabled admin/);
		expect(admin.role).toBe('admin');
		off();
		await db.close();
	});

	it('adopts a session another replica just wrote, and only a live one', async () => {
		const db = await openDatabase(await target());
		const dave = await addUser(db, ME, 'dave', 'trader', 'dave password');
		const who = { id: dave.id, name: dave.name, role: dave.role };
		// Written by "another replica": in the table, not held here.
		const token = createSession(Date.now(), who);
		await persistSession(db, token, who, '10.0.0.4');
		dropSessions(new Set([sessionKey(token)]));
		expect(sessionOf(token)).toBeUndefined();
		expect(await adoptSession(db, token)).toBe(true);
		expect(sessionOf(token)?.user).toEqual(who);
		expect(await adoptSession(db, 'no-such-session')).toBe(false);
		const old = createSession(Date.now(), who);
		await persistSession(db, old, who, null, Date.now() - 13 * 60 * 60_000);
		dropSessions(new Set([sessionKey(old)]));
		expect(await adoptSession(db, old)).toBe(false);
		await setDisabled(db, ME, 'dave', true);
		const late = createSession(Date.now(), who);
		await persistSession(db, late, who, null);
		dropSessions(new Set([sessionKey(late)]));
		expect(await adoptSession(db, late)).toBe(false);
		await db.close();
	});

	it('follows the table: a session deleted elsewhere ends here, a row is restored', async () => {
		const db = await openDatabase(await target());
		const carol = await addUser(db, ME, 'carol', 'viewer', 'carol password');
		const who = { id: carol.id, name: carol.name, role: carol.role };
		const token = createSession(Date.now(), who);
		await persistSession(db, token, who, null);
		await db.run(`DELETE FROM sessions`); // another process: `npm run user -- signout carol`
		await syncSessions(db);
		expect(sessionOf(token)).toBeUndefined();
		// A restart: the held session is gone, the row brings it back.
		const again = createSession(Date.now(), who);
		await persistSession(db, again, who, null);
		await db.run(`DELETE FROM sessions`);
		await db.run(
			`INSERT INTO sessions (id_hash, user_id, created_at, last_seen_at, address) VALUES (?, ?, ?, ?, ?)`,
			[sessionKey('restored-id'), carol.id, Date.now(), Date.now(), null]
		);
		await syncSessions(db);
		expect(sessionOf('restored-id')?.user).toEqual(who);
		await db.close();
	});

	it('follows the database of the newest start, not a closed earlier one', async () => {
		const first = await openDatabase(await target());
		await followSessions(first);
		await first.close();
		const db = await openDatabase(await target());
		await followSessions(db);
		const dave = await addUser(db, ME, 'dave', 'viewer', 'dave password');
		// Another process writes a session row; the follower brings it here within a sync.
		await db.run(
			`INSERT INTO sessions (id_hash, user_id, created_at, last_seen_at, address) VALUES (?, ?, ?, ?, ?)`,
			[sessionKey('followed-id'), dave.id, Date.now(), Date.now(), null]
		);
		try {
			await vi.waitFor(() => expect(sessionOf('followed-id')?.user?.name).toBe('dave'), {
				timeout: 10_000,
				interval: 100
			});
		} finally {
			stopFollowingSessions();
			await db.close();
		}
	});

	it('turns a GEXDECK_PASSWORD setup into the admin user on upgrade', async () => {
		const db = await openDatabase(await target());
		await refreshTeamsMode(db);
		expect(teamsMode()).toBe(false);
		await startTeams(db, 'old-pw');
		expect(teamsMode()).toBe(true);
		expect(await new UserStore(db).verify('admin', 'old-pw')).toMatchObject({ role: 'admin' });
		await startTeams(db, 'changed later'); // only once: the admin's password stays
		expect(await new UserStore(db).list()).toHaveLength(1);
		stopFollowingSessions();
		await db.close();
	});

	it('audits without secrets and exports JSON lines', async () => {
		const db = await openDatabase(await target());
		await audit(db, {
			actor: 'root',
			address: '10.1.1.1',
			action: 'sign-in',
			detail: 'admin',
			at: 1
		});
		await audit(db, {
			actor: 'root',
			action: 'key changed',
			detail: `gexbot_custom_${'a'.repeat(43)}`,
			at: 2
		});
		const entries = await auditEntries(db);
		expect(entries.map((e) => e.detail)).toEqual(['(withheld)', 'admin']);
		const lines = (await auditJsonLines(db))
			.trim()
			.split('\n')
			.map((l) => JSON.parse(l));
		expect(lines[0]).toEqual({
			at: '1970-01-01T00:00:00.001Z',
			actor: 'root',
			action: 'sign-in',
			detail: 'admin',
			address: '10.1.1.1'
		});
		await db.close();
	});

	it('npm run user: add reads the password from stdin, never argv', async () => {
		const t = await target();
		const env = { ...process.env };
		process.env.GEXDECK_DATA_DIR = t.dataDir;
		if (t.url) process.env.GEXDECK_DATABASE_URL = t.url;
		else delete process.env.GEXDECK_DATABASE_URL;
		const out: string[] = [];
		try {
			const run = (argv: string[]) =>
				main(
					argv,
					async () => 'typed password',
					(l) => void out.push(l),
					(l) => void out.push(l)
				);
			expect(await run(['add', '--admin', 'dana'])).toBe(0);
			expect(await run(['add', 'erin'])).toBe(0);
			expect(await run(['role', 'erin', 'trader'])).toBe(0);
			expect(await run(['list'])).toBe(0);
			expect(await run(['disable', 'dana'])).toBe(1);
			expect(await run(['bogus'])).toBe(2);
			expect(out).toContain('dana  admin  since ' + new Date().toISOString().slice(0, 10));
			expect(out.join('\n')).toMatch(/erin {2}trader/);
			expect(out.join('\n')).toMatch(/last enabled admin/);
			const db = await openDatabase(t);
			expect(await new UserStore(db).verify('dana', 'typed password')).toBeDefined();
			await db.close();
		} finally {
			process.env = env;
		}
	});
});
