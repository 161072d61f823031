/**
 * Integration tokens: what a charting platform (NinjaTrader, Sierra Chart, Bookmap) or an AI
 * assistant presents to read `/feed/*` or `/mcp`, instead of the dashboard's password. A token
 * is 32 random bytes shown once at creation (`gxd_<base64url>`); only its SHA-256 is stored, in
 * the database's `tokens` table, with a name, its scopes, its creation time and its last use
 * (when, from which address). The `tokens.json` of older releases is imported once.
 *
 * A token belongs to a user (its `owner`; '' is the implicit admin of a dashboard without users)
 * and acts with that user's role: a trader's or an admin's token works, a viewer has none, and a
 * disabled (or removed) owner's tokens are refused at the next check. A trader lists and revokes
 * only their own tokens (another's id is as unknown as a missing one); an admin sees all.
 *
 * Scopes say what a token opens: `feed` (the /feed/v1 routes) and `mcp`. A token opens nothing
 * else: the request gate never looks at it (requestGate.ts), only the feed's and MCP's handlers.
 *
 * The database is the source of truth: another process (`npm run token -- revoke`) may change
 * it, so every check looks the token up there; a revoked token answers 401 at once. Last-use
 * times are written at once for a first use, then at most every LAST_USE_WRITE_MS.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../db/index';
import { IMPLICIT_OWNER, mayTouch, OWNER_ASKER, type Asker } from '../alerts/store';
import { TokenAddresses } from './tokenAddresses';

export const TOKEN_SCOPES = ['feed', 'mcp'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];
export const TOKEN_PREFIX = 'gxd_';
const LAST_USE_WRITE_MS = 10_000;
const NAME_MAX = 60;

export interface StoredToken {
	id: string;
	name: string;
	scopes: TokenScope[];
	/** SHA-256 of the whole token text, hex. */
	hash: string;
	createdAt: number;
	lastUsedAt: number | null;
	lastUsedFrom: string | null;
	/** The user id it belongs to (IMPLICIT_OWNER: the single-user mode's admin). */
	owner: string;
}

/** A token as listed (never its hash). */
export type TokenInfo = Omit<StoredToken, 'hash'>;

/** The shape of an older release's tokens.json (legacyImport.ts). */
export interface TokensFile {
	version: 1;
	tokens: StoredToken[];
}

export function isTokensFile(v: unknown): v is TokensFile {
	const f = v as TokensFile;
	return (
		typeof f === 'object' &&
		f !== null &&
		f.version === 1 &&
		Array.isArray(f.tokens) &&
		f.tokens.every(
			(t) =>
				typeof t.id === 'string' &&
				typeof t.name === 'string' &&
				typeof t.hash === 'string' &&
				Array.isArray(t.scopes)
		)
	);
}

/** Write `tokens` as rows of the `tokens` table (the import of tokens.json). */
export async function insertTokenRows(tx: Queryable, tokens: readonly StoredToken[]) {
	for (const t of tokens) {
		await tx.run(
			`INSERT INTO tokens (id, name, scopes, hash, created_at, last_used_at, last_used_from, owner)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			[
				t.id,
				t.name,
				t.scopes.join(','),
				t.hash,
				t.createdAt,
				t.lastUsedAt ?? null,
				t.lastUsedFrom ?? null,
				t.owner ?? IMPLICIT_OWNER
			]
		);
	}
}

function sha256Hex(text: string): string {
	return createHash('sha256').update(text).digest('hex');
}

/** A live token and the role it acts with (its owner's). */
export type TokenCheck =
	{ ok: true; token: TokenInfo; role: 'admin' | 'trader' } | { ok: false; error: string };

interface TokenRow extends Record<string, string | number | null> {
	id: string;
	name: string;
	scopes: string;
	created_at: number;
	last_used_at: number | null;
	last_used_from: string | null;
	owner: string;
}

const COLUMNS = 'id, name, scopes, created_at, last_used_at, last_used_from, owner';

function infoOf(r: TokenRow): TokenInfo {
	return {
		id: r.id,
		name: r.name,
		scopes: r.scopes.split(',').filter(Boolean) as TokenScope[],
		createdAt: Number(r.created_at),
		lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
		lastUsedFrom: r.last_used_from,
		owner: r.owner
	};
}

/**
 * Why a token of `owner` may not act now, or its role: the implicit admin's while the dashboard
 * has no users; a user's while they are enabled and not a viewer.
 */
function ownerRole(row: {
	owner: string;
	user_role: string | null;
	user_name: string | null;
	user_disabled: number | null;
	users: number;
}): { role: 'admin' | 'trader' } | { error: string } {
	if (row.owner === IMPLICIT_OWNER) {
		return Number(row.users) === 0
			? { role: 'admin' }
			: { error: 'This token has no owner: an admin makes a new one.' };
	}
	if (row.user_role === null || Number(row.user_disabled) !== 0) {
		return { error: 'The owner of this token is disabled.' };
	}
	if (row.user_role === 'admin' || row.user_role === 'trader') return { role: row.user_role };
	return { error: `The owner of this token has the ${row.user_role} role, which has no tokens.` };
}

interface OwnerRow extends TokenRow {
	user_role: string | null;
	user_name: string | null;
	user_disabled: number | null;
	users: number;
}

/** A token with its owner's role and state, and whether the dashboard has users at all. */
const OWNER_QUERY = `SELECT ${COLUMNS.split(', ')
	.map((c) => `t.${c}`)
	.join(', ')}, u.role AS user_role, u.name AS user_name, u.disabled AS user_disabled,
	(SELECT COUNT(*) FROM users) AS users
	FROM tokens t LEFT JOIN users u ON u.id = t.owner`;

export class TokenStore {
	/** Last uses not yet written: id -> when, from where. */
	private pending = new Map<string, { at: number; from: string | null }>();
	private lastWriteAt = Number.NEGATIVE_INFINITY;
	private readonly addresses: TokenAddresses;

	constructor(
		private readonly db: Database,
		private readonly now: () => number = Date.now
	) {
		this.addresses = new TokenAddresses(db, now);
	}

	/** Creates a token; its text is returned here only, never stored or shown again. */
	async create(
		name: string,
		scopes: readonly TokenScope[] = ['feed'],
		owner: string = IMPLICIT_OWNER
	): Promise<{ token: string; info: TokenInfo }> {
		const clean = name.trim().replace(/[^\x20-\x7e]/g, '');
		if (!clean || clean.length > NAME_MAX) {
			throw new Error(`A token needs a name of 1 to ${NAME_MAX} printable characters.`);
		}
		const bad = scopes.filter((s) => !TOKEN_SCOPES.includes(s));
		if (bad.length > 0 || scopes.length === 0) {
			throw new Error(`Unknown scope (known: ${TOKEN_SCOPES.join(', ')}).`);
		}
		const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
		const stored: StoredToken = {
			id: randomUUID().slice(0, 8),
			name: clean,
			scopes: [...new Set(scopes)],
			hash: sha256Hex(token),
			createdAt: this.now(),
			lastUsedAt: null,
			lastUsedFrom: null,
			owner
		};
		await this.db.transaction((tx) => insertTokenRows(tx, [stored]));
		const { hash: _hash, ...info } = stored;
		return { token, info };
	}

	/** The tokens `who` sees: an admin's every token, anyone else's only their own. */
	async list(who: Asker = OWNER_ASKER): Promise<TokenInfo[]> {
		const rows = await this.db.all<TokenRow>(
			`SELECT ${COLUMNS} FROM tokens ORDER BY created_at, id`
		);
		return rows
			.filter((r) => mayTouch(who, r.owner))
			.map((r) => {
				const info = infoOf(r);
				const mine = this.pending.get(info.id);
				return mine ? { ...info, lastUsedAt: mine.at, lastUsedFrom: mine.from } : info;
			});
	}

	/** The ids of the tokens that may act now (their owner enabled and not a viewer). */
	async liveIds(): Promise<Set<string>> {
		const rows = await this.db.all<OwnerRow>(`${OWNER_QUERY}`);
		return new Set(rows.filter((r) => 'role' in ownerRole(r)).map((r) => r.id));
	}

	/**
	 * Revokes by id (or by name when unique) among the tokens `who` sees; resolves to the revoked
	 * token, or undefined when nothing matched (another user's token is as unknown as none).
	 */
	async revoke(idOrName: string, who: Asker = OWNER_ASKER): Promise<TokenInfo | undefined> {
		return this.db.transaction(async (tx) => {
			const visible = async (column: 'id' | 'name') =>
				(
					await tx.all<TokenRow>(`SELECT ${COLUMNS} FROM tokens WHERE ${column} = ?`, [idOrName])
				).filter((r) => mayTouch(who, r.owner));
			const byId = await visible('id');
			const matches = byId.length > 0 ? byId : await visible('name');
			if (matches.length !== 1) return undefined;
			await tx.run(`DELETE FROM tokens WHERE id = ?`, [matches[0].id]);
			await tx.run(`DELETE FROM token_addresses WHERE token_id = ?`, [matches[0].id]);
			this.pending.delete(matches[0].id);
			this.addresses.forgetSeen(matches[0].id);
			return infoOf(matches[0]);
		});
	}

	/**
	 * Whether `presented` is a live token with `scope`; records its use from `address`. The
	 * token is looked up by its SHA-256 (a token's hash says nothing of another's).
	 */
	async check(
		presented: string | undefined,
		scope: TokenScope,
		address?: string
	): Promise<TokenCheck> {
		if (!presented) {
			return {
				ok: false,
				error: 'An integration token is required (Authorization: Bearer or ?token=).'
			};
		}
		const row = await this.db.get<OwnerRow>(`${OWNER_QUERY} WHERE t.hash = ?`, [
			sha256Hex(presented)
		]);
		if (!row) return { ok: false, error: 'Unknown or revoked integration token.' };
		const acting = ownerRole(row);
		if ('error' in acting) return { ok: false, error: acting.error };
		const found = infoOf(row);
		if (!found.scopes.includes(scope)) {
			return { ok: false, error: `This token is not allowed here (needs the "${scope}" scope).` };
		}
		await this.addresses.note(
			{ ...found, ownerName: row.user_name ?? 'the single-user admin' },
			address
		);
		const now = this.now();
		const firstUse = found.lastUsedAt === null && !this.pending.has(found.id);
		this.pending.set(found.id, { at: now, from: address ?? null });
		if (firstUse || now - this.lastWriteAt >= LAST_USE_WRITE_MS) await this.flush();
		return {
			ok: true,
			token: { ...found, lastUsedAt: now, lastUsedFrom: address ?? null },
			role: acting.role
		};
	}

	/** Writes pending last-use times (also called on a timer and at shutdown). */
	async flush(): Promise<void> {
		if (this.pending.size === 0) return;
		const uses = [...this.pending];
		this.pending.clear();
		this.lastWriteAt = this.now();
		try {
			await this.db.transaction(async (tx) => {
				for (const [id, use] of uses) {
					await tx.run(`UPDATE tokens SET last_used_at = ?, last_used_from = ? WHERE id = ?`, [
						use.at,
						use.from,
						id
					]);
				}
			});
		} catch (err) {
			// Kept for the next write, unless a newer use came in meanwhile.
			for (const [id, use] of uses) if (!this.pending.has(id)) this.pending.set(id, use);
			throw err;
		}
	}
}
