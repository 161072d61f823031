/**
 * The team's users in the database (`users`, migration 3): a name, a role and the Argon2id hash
 * of a password (@node-rs/argon2, whose per-platform binaries are npm packages: nothing is
 * downloaded from elsewhere). Adding the first user starts teams mode (teams.ts).
 */
import { randomUUID } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type { Database, Queryable } from '../db';
import { isRole, type Role } from './roles';

export interface User {
	id: string;
	name: string;
	role: Role;
	disabled: boolean;
	createdAt: number;
	/** Signs in through the identity provider (OIDC): no local password. */
	oidc: boolean;
}

interface UserRow {
	[k: string]: string | number | null;
	id: string;
	name: string;
	role: string;
	password_hash: string;
	disabled: number;
	created_at: number;
	oidc_subject: string | null;
}

/** Names people type: letters, digits and . _ - @, 1 to 64 characters. */
const NAME = /^[A-Za-z0-9._@-]{1,64}$/;
export const MIN_PASSWORD = 8;

export class UserError extends Error {}

function userOf(row: UserRow): User {
	return {
		id: row.id,
		name: row.name,
		role: isRole(row.role) ? row.role : 'viewer',
		disabled: Number(row.disabled) !== 0,
		createdAt: Number(row.created_at),
		oidc: row.oidc_subject !== null && row.oidc_subject !== undefined
	};
}

/** A PHC string of the same parameters, checked when the name is unknown (same time spent). */
let decoy: Promise<string> | undefined;

export class UserStore {
	constructor(private readonly db: Database) {}

	async count(q: Queryable = this.db): Promise<number> {
		const row = await q.get<{ n: number }>(`SELECT COUNT(*) AS n FROM users`);
		return Number(row?.n ?? 0);
	}

	async list(): Promise<User[]> {
		const rows = await this.db.all<UserRow>(`SELECT * FROM users ORDER BY name`);
		return rows.map(userOf);
	}

	async byName(name: string): Promise<User | undefined> {
		const row = await this.db.get<UserRow>(`SELECT * FROM users WHERE name = ?`, [name]);
		return row ? userOf(row) : undefined;
	}

	async byId(id: string): Promise<User | undefined> {
		const row = await this.db.get<UserRow>(`SELECT * FROM users WHERE id = ?`, [id]);
		return row ? userOf(row) : undefined;
	}

	async add(name: string, role: Role, password: string, now = Date.now()): Promise<User> {
		if (!NAME.test(name)) {
			throw new UserError('A user name is 1 to 64 letters, digits, dots, dashes, _ or @.');
		}
		if (!isRole(role)) throw new UserError('The role is admin, trader or viewer.');
		if (password.length < MIN_PASSWORD) {
			throw new UserError(`The password needs at least ${MIN_PASSWORD} characters.`);
		}
		if (await this.byName(name)) throw new UserError(`There is already a user "${name}".`);
		const user: User = {
			id: randomUUID(),
			name,
			role,
			disabled: false,
			createdAt: now,
			oidc: false
		};
		const passwordHash = await hash(password);
		await this.db.run(
			`INSERT INTO users (id, name, role, password_hash, disabled, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			[user.id, name, role, passwordHash, 0, now]
		);
		return user;
	}

	async byOidcSubject(subject: string): Promise<User | undefined> {
		const row = await this.db.get<UserRow>(`SELECT * FROM users WHERE oidc_subject = ?`, [subject]);
		return row ? userOf(row) : undefined;
	}

	/**
	 * A user met at their first OIDC sign-in: marked by the provider's subject, with no password
	 * (an empty hash, which no password verifies).
	 */
	async addOidc(name: string, role: Role, subject: string, now = Date.now()): Promise<User> {
		if (!NAME.test(name)) throw new UserError(`"${name}" is not a user name gexdeck accepts.`);
		if (!isRole(role)) throw new UserError('The role is admin, trader or viewer.');
		if (await this.byName(name)) throw new UserError(`There is already a user "${name}".`);
		const user: User = {
			id: randomUUID(),
			name,
			role,
			disabled: false,
			createdAt: now,
			oidc: true
		};
		await this.db.run(
			`INSERT INTO users (id, name, role, password_hash, disabled, created_at, oidc_subject) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			[user.id, name, role, '', 0, now, subject]
		);
		return user;
	}

	/**
	 * The enabled user whose name and password these are, else undefined. An unknown name costs
	 * one Argon2id verification too, so the answer's time does not tell which names exist.
	 */
	async verify(name: string, password: string): Promise<User | undefined> {
		const row = await this.db.get<UserRow>(`SELECT * FROM users WHERE name = ?`, [name]);
		if (!row) {
			decoy ??= hash(randomUUID());
			await verify(await decoy, password).catch(() => false);
			return undefined;
		}
		// An OIDC user's empty hash: the decoy (which no password matches) is verified instead.
		const phc = row.password_hash || (await (decoy ??= hash(randomUUID())));
		const ok = await verify(phc, password).catch(() => false);
		if (!ok) return undefined;
		const user = userOf(row);
		return user.disabled ? undefined : user;
	}

	/** Give `name` a role; the user's sessions end (teams.ts). Resolves to the user changed. */
	async setRole(name: string, role: Role): Promise<User> {
		if (!isRole(role)) throw new UserError('The role is admin, trader or viewer.');
		const user = await this.need(name);
		if (user.role === 'admin' && role !== 'admin') await this.keepOneAdmin(user);
		await this.db.run(`UPDATE users SET role = ? WHERE id = ?`, [role, user.id]);
		return { ...user, role };
	}

	async setDisabled(name: string, disabled: boolean): Promise<User> {
		const user = await this.need(name);
		if (disabled && user.role === 'admin') await this.keepOneAdmin(user);
		await this.db.run(`UPDATE users SET disabled = ? WHERE id = ?`, [disabled ? 1 : 0, user.id]);
		return { ...user, disabled };
	}

	async setPassword(name: string, password: string): Promise<User> {
		if (password.length < MIN_PASSWORD) {
			throw new UserError(`The password needs at least ${MIN_PASSWORD} characters.`);
		}
		const user = await this.need(name);
		if (user.oidc) throw new UserError(`${name} signs in through the identity provider.`);
		await this.db.run(`UPDATE users SET password_hash = ? WHERE id = ?`, [
			await hash(password),
			user.id
		]);
		return user;
	}

	private async need(name: string): Promise<User> {
		const user = await this.byName(name);
		if (!user) throw new UserError(`No user "${name}".`);
		return user;
	}

	/** A team always keeps one enabled admin: nobody could manage it otherwise. */
	private async keepOneAdmin(user: User): Promise<void> {
		const row = await this.db.get<{ n: number }>(
			`SELECT COUNT(*) AS n FROM users WHERE role = ? AND disabled = ? AND id <> ?`,
			['admin', 0, user.id]
		);
		if (Number(row?.n ?? 0) === 0) {
			throw new UserError(`${user.name} is the last enabled admin; make another admin first.`);
		}
	}
}
