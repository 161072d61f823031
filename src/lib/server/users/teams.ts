/**
 * Teams mode: named users with roles. It begins when the first user exists (`npm run user --
 * add --admin NAME`, or /admin from this machine); until then the dashboard works as before (one
 * implicit admin on loopback, or everyone who knows GEXDECK_PASSWORD). At the first start of
 * this release a GEXDECK_PASSWORD setup becomes the admin user "admin" with that password.
 *
 * The acts on users (used by /admin and the CLI) live here so that each one ends the user's
 * sessions and writes the audit log the same way wherever it comes from. When the first admin
 * exists, what the single-user mode made becomes theirs (owners.ts).
 */
import type { Database } from '../db';
import { log } from '../log';
import { audit, pruneAudit } from './audit';
import { adoptImplicitRecords } from './owners';
import type { Role } from './roles';
import { endUserSessions, followSessions } from './sessionStore';
import { UserError, UserStore, type User } from './userStore';

let active = false;
/** OIDC sign-in configured: teams mode from the start (its users are made at first sign-in). */
let oidcConfigured = false;

/** Whether the dashboard has users (a session with a user is then needed everywhere). */
export function teamsMode(): boolean {
	return active;
}

/** For tests and the CLI's own process: say whether users exist. */
export async function refreshTeamsMode(db: Database): Promise<boolean> {
	active = oidcConfigured || (await new UserStore(db).count()) > 0;
	return active;
}

/** The name a GEXDECK_PASSWORD setup's admin gets on upgrade. */
export const UPGRADED_ADMIN = 'admin';

/**
 * At start: turn a GEXDECK_PASSWORD setup into the admin user (once, when there are no users),
 * restore the sessions and follow the table. With OIDC configured teams mode is on at once.
 */
export async function startTeams(
	db: Database,
	password: string | undefined,
	oidc = false
): Promise<void> {
	oidcConfigured = oidc;
	if (password && (await new UserStore(db).count()) === 0) await firstAdmin(db, password);
	await refreshTeamsMode(db);
	// Rows of the single-user mode left by a release before owners, or by an upgrade just now.
	await adoptImplicitRecords(db);
	await pruneAudit(db);
	await followSessions(db);
}

/** The advisory lock the first admin is made under (PostgreSQL; the migrations hold 2029). */
const FIRST_ADMIN_LOCK = 2030;

/**
 * Make GEXDECK_PASSWORD the admin user, unless another process did meanwhile: replicas started
 * together on an empty database all find no user, so the look and the insert are one
 * transaction, serialised across processes (PostgreSQL: an advisory lock; SQLite: the file's
 * lock every transaction takes); the later ones find the user and leave it.
 */
async function firstAdmin(db: Database, password: string): Promise<void> {
	// A password shorter than the users' minimum still becomes the admin's: nothing is lost.
	const passwordHash = await hashOf(password);
	const made = await db.transaction(async (tx) => {
		if (db.kind === 'postgres') await tx.run(`SELECT pg_advisory_xact_lock(${FIRST_ADMIN_LOCK})`);
		if ((await new UserStore(db).count(tx)) > 0) return false;
		await tx.run(
			`INSERT INTO users (id, name, role, password_hash, disabled, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			[crypto.randomUUID(), UPGRADED_ADMIN, 'admin', passwordHash, 0, Date.now()]
		);
		await audit(tx, {
			actor: 'gexdeck',
			action: 'user added',
			detail: `${UPGRADED_ADMIN} (admin) from GEXDECK_PASSWORD`
		});
		return true;
	});
	if (made) {
		log.info(
			`teams mode: GEXDECK_PASSWORD became the admin user "${UPGRADED_ADMIN}" (sign in with that name)`
		);
	}
}

async function hashOf(password: string): Promise<string> {
	const { hash } = await import('@node-rs/argon2');
	return hash(password);
}

/** Who acts, and from where (the audit log's columns). */
export interface Actor {
	name: string;
	address: string | null;
}

export async function addUser(
	db: Database,
	actor: Actor,
	name: string,
	role: Role,
	password: string
): Promise<User> {
	const user = await new UserStore(db).add(name, role, password);
	active = true;
	await audit(db, {
		actor: actor.name,
		address: actor.address,
		action: 'user added',
		detail: `${name} (${role})`
	});
	if (role === 'admin') await adoptImplicitRecords(db, actor.name);
	return user;
}

export async function changeRole(
	db: Database,
	actor: Actor,
	name: string,
	role: Role
): Promise<User> {
	const before = await new UserStore(db).byName(name);
	const user = await new UserStore(db).setRole(name, role);
	await endUserSessions(db, user.id);
	await audit(db, {
		actor: actor.name,
		address: actor.address,
		action: 'role changed',
		detail: `${name}: ${before?.role ?? '?'} -> ${role}`
	});
	if (role === 'admin') await adoptImplicitRecords(db, actor.name);
	return user;
}

export async function setDisabled(
	db: Database,
	actor: Actor,
	name: string,
	disabled: boolean
): Promise<User> {
	const user = await new UserStore(db).setDisabled(name, disabled);
	if (disabled) await endUserSessions(db, user.id);
	await audit(db, {
		actor: actor.name,
		address: actor.address,
		action: disabled ? 'user disabled' : 'user enabled',
		detail: name
	});
	return user;
}

export async function signOutEverywhere(db: Database, actor: Actor, name: string): Promise<number> {
	const user = await new UserStore(db).byName(name);
	if (!user) throw new UserError(`No user "${name}".`);
	const n = await endUserSessions(db, user.id);
	await audit(db, {
		actor: actor.name,
		address: actor.address,
		action: 'signed out everywhere',
		detail: `${name} (${n} sessions)`
	});
	return n;
}
