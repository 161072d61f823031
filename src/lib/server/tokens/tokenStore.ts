/**
 * Integration tokens: what a charting platform (NinjaTrader, Sierra Chart, Bookmap) or an AI
 * assistant presents to read `/feed/*` or `/mcp`, instead of the dashboard's password. A token
 * is 32 random bytes shown once at creation (`gxd_<base64url>`); only its SHA-256 is stored, in
 * the database's `tokens` table, with a name, its scopes, its creation time and its last use
 * (when, from which address). The `tokens.json` of older releases is imported once.
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
			`INSERT INTO tokens (id, name, scopes, hash, created_at, last_used_at, last_used_from)
			VALUES (?, ?, ?, ?, ?, ?, ?)`,
			[
				t.id,
				t.name,
				t.scopes.join(','),
				t.hash,
				t.createdAt,
				t.lastUsedAt ?? null,
				t.lastUsedFrom ?? null
			]
		);
	}
}

function sha256Hex(text: string): string {
	return createHash('sha256').update(text).digest('hex');
}

export type TokenCheck = { ok: true; token: TokenInfo } | { ok: false; error: string };

interface TokenRow extends Record<string, string | number | null> {
	id: string;
	name: string;
	scopes: string;
	created_at: number;
	last_used_at: number | null;
	last_used_from: string | null;
}

const COLUMNS = 'id, name, scopes, created_at, last_used_at, last_used_from';

function infoOf(r: TokenRow): TokenInfo {
	return {
		id: r.id,
		name: r.name,
		scopes: r.scopes.split(',').filter(Boolean) as TokenScope[],
		createdAt: Number(r.created_at),
		lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
		lastUsedFrom: r.last_used_from
	};
}

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
		scopes: readonly TokenScope[] = ['feed']
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
			lastUsedFrom: null
		};
		await this.db.transaction((tx) => insertTokenRows(tx, [stored]));
		const { hash: _hash, ...info } = stored;
		return { token, info };
	}

	async list(): Promise<TokenInfo[]> {
		const rows = await this.db.all<TokenRow>(
			`SELECT ${COLUMNS} FROM tokens ORDER BY created_at, id`
		);
		return rows.map((r) => {
			const info = infoOf(r);
			const mine = this.pending.get(info.id);
			return mine ? { ...info, lastUsedAt: mine.at, lastUsedFrom: mine.from } : info;
		});
	}

	/** Revokes by id (or by name when unique); false when nothing matched. */
	async revoke(idOrName: string): Promise<boolean> {
		return this.db.transaction(async (tx) => {
			const byId = await tx.all<{ id: string }>(`SELECT id FROM tokens WHERE id = ?`, [idOrName]);
			const matches =
				byId.length > 0
					? byId
					: await tx.all<{ id: string }>(`SELECT id FROM tokens WHERE name = ?`, [idOrName]);
			if (matches.length !== 1) return false;
			await tx.run(`DELETE FROM tokens WHERE id = ?`, [matches[0].id]);
			await tx.run(`DELETE FROM token_addresses WHERE token_id = ?`, [matches[0].id]);
			this.pending.delete(matches[0].id);
			this.addresses.forgetSeen(matches[0].id);
			return true;
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
		const row = await this.db.get<TokenRow>(`SELECT ${COLUMNS} FROM tokens WHERE hash = ?`, [
			sha256Hex(presented)
		]);
		if (!row) return { ok: false, error: 'Unknown or revoked integration token.' };
		const found = infoOf(row);
		if (!found.scopes.includes(scope)) {
			return { ok: false, error: `This token is not allowed here (needs the "${scope}" scope).` };
		}
		await this.addresses.note(found, address);
		const now = this.now();
		const firstUse = found.lastUsedAt === null && !this.pending.has(found.id);
		this.pending.set(found.id, { at: now, from: address ?? null });
		if (firstUse || now - this.lastWriteAt >= LAST_USE_WRITE_MS) await this.flush();
		return { ok: true, token: { ...found, lastUsedAt: now, lastUsedFrom: address ?? null } };
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
