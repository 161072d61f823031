/**
 * Integration tokens: what a charting platform (NinjaTrader, Sierra Chart, Bookmap) presents to
 * read `/feed/*`, instead of the dashboard's password. A token is 32 random bytes shown once at
 * creation (`gxd_<base64url>`); only its SHA-256 is stored, in `<data>/tokens.json` (0600),
 * with a name, its scopes, its creation time and its last use (when, from which address).
 *
 * Scopes say what a token opens: `feed` (the /feed/v1 routes) today; `mcp` is the next one.
 * A token opens nothing else: the request gate never looks at it (requestGate.ts), only the
 * feed's handler does.
 *
 * The file is the source of truth: another process (`npm run token -- revoke`) may change it,
 * so every check stats it and re-reads it when it changed; a revoked token answers
 * 401 at once. Last-use times are kept in memory and written at once for a first use, then at most every LAST_USE_WRITE_MS.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonFile, writeJsonFile } from '../jsonFile';

export const TOKEN_SCOPES = ['feed', 'mcp'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];
export const TOKEN_PREFIX = 'gxd_';
export const TOKENS_FILE = 'tokens.json';
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

interface TokensFile {
	version: 1;
	tokens: StoredToken[];
}

function isTokensFile(v: unknown): v is TokensFile {
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

function sha256(text: string): Buffer {
	return createHash('sha256').update(text).digest();
}

export type TokenCheck = { ok: true; token: TokenInfo } | { ok: false; error: string };

export class TokenStore {
	private tokens: StoredToken[] = [];
	/** The file's identity when last read: a write renames a new file in (new inode). */
	private version = '';
	private dirty = false;
	private lastWriteAt = Number.NEGATIVE_INFINITY;

	constructor(
		readonly path: string,
		private readonly now: () => number = Date.now
	) {
		this.reload(true);
	}

	static inDataDir(dataDir: string): TokenStore {
		return new TokenStore(join(dataDir, TOKENS_FILE));
	}

	/** Re-reads the file when it changed on disk (or `force`). */
	private reload(force = false): void {
		const version = this.fileVersion();
		if (!force && version === this.version) return;
		const uses = new Map(this.tokens.map((t) => [t.id, t]));
		this.tokens = readJsonFile(this.path, isTokensFile)?.tokens ?? [];
		// Last uses not yet written survive a re-read (another process revoked or created one).
		for (const t of this.tokens) {
			const mine = uses.get(t.id);
			if (mine && (mine.lastUsedAt ?? 0) > (t.lastUsedAt ?? 0)) {
				t.lastUsedAt = mine.lastUsedAt;
				t.lastUsedFrom = mine.lastUsedFrom;
			}
		}
		this.version = version;
	}

	private fileVersion(): string {
		try {
			const st = statSync(this.path);
			return `${st.ino}:${st.mtimeMs}:${st.size}`;
		} catch {
			return 'none';
		}
	}

	private save(): void {
		writeJsonFile(this.path, { version: 1, tokens: this.tokens } satisfies TokensFile);
		this.version = this.fileVersion();
		this.lastWriteAt = this.now();
		this.dirty = false;
	}

	/** Creates a token; its text is returned here only, never stored or shown again. */
	create(
		name: string,
		scopes: readonly TokenScope[] = ['feed']
	): { token: string; info: TokenInfo } {
		const clean = name.trim().replace(/[^\x20-\x7e]/g, '');
		if (!clean || clean.length > NAME_MAX) {
			throw new Error(`A token needs a name of 1 to ${NAME_MAX} printable characters.`);
		}
		const bad = scopes.filter((s) => !TOKEN_SCOPES.includes(s));
		if (bad.length > 0 || scopes.length === 0) {
			throw new Error(`Unknown scope (known: ${TOKEN_SCOPES.join(', ')}).`);
		}
		this.reload();
		const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
		const stored: StoredToken = {
			id: randomUUID().slice(0, 8),
			name: clean,
			scopes: [...new Set(scopes)],
			hash: sha256(token).toString('hex'),
			createdAt: this.now(),
			lastUsedAt: null,
			lastUsedFrom: null
		};
		this.tokens.push(stored);
		this.save();
		return { token, info: infoOf(stored) };
	}

	list(): TokenInfo[] {
		this.reload();
		return this.tokens.map(infoOf);
	}

	/** Revokes by id (or by name when unique); false when nothing matched. */
	revoke(idOrName: string): boolean {
		this.reload();
		const byId = this.tokens.filter((t) => t.id === idOrName);
		const matches = byId.length > 0 ? byId : this.tokens.filter((t) => t.name === idOrName);
		if (matches.length !== 1) return false;
		this.tokens = this.tokens.filter((t) => t !== matches[0]);
		this.save();
		return true;
	}

	/**
	 * Whether `presented` is a live token with `scope`; records its use from `address`. Every
	 * stored hash is compared in constant time (no early exit on the first match either).
	 */
	check(presented: string | undefined, scope: TokenScope, address?: string): TokenCheck {
		if (!presented) {
			return {
				ok: false,
				error: 'An integration token is required (Authorization: Bearer or ?token=).'
			};
		}
		this.reload();
		const digest = sha256(presented);
		let found: StoredToken | undefined;
		for (const t of this.tokens) {
			const stored = Buffer.from(t.hash, 'hex');
			if (stored.length === digest.length && timingSafeEqual(stored, digest)) found = t;
		}
		if (!found) return { ok: false, error: 'Unknown or revoked integration token.' };
		if (!found.scopes.includes(scope)) {
			return { ok: false, error: `This token is not allowed here (needs the "${scope}" scope).` };
		}
		const now = this.now();
		const firstUse = found.lastUsedAt === null;
		found.lastUsedAt = now;
		found.lastUsedFrom = address ?? null;
		this.dirty = true;
		if (firstUse || now - this.lastWriteAt >= LAST_USE_WRITE_MS) this.flush();
		return { ok: true, token: infoOf(found) };
	}

	/** Writes pending last-use times (also called on a timer and at shutdown). */
	flush(): void {
		if (!this.dirty) return;
		this.reload();
		if (this.tokens.length > 0) this.save();
		this.dirty = false;
	}
}

function infoOf(t: StoredToken): TokenInfo {
	return {
		id: t.id,
		name: t.name,
		scopes: [...t.scopes],
		createdAt: t.createdAt,
		lastUsedAt: t.lastUsedAt,
		lastUsedFrom: t.lastUsedFrom
	};
}
