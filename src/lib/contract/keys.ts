/**
 * API key formats. Every key ends in a 43-character secret of the base64url alphabet
 * (32 random bytes): `gexbot_custom_<43>` (custom script), `gexbot_<platform>_<43>` (platform
 * integration; the platform name replaces `custom`), `research_<43>` (Research add-on only).
 * The secret may itself contain `_`, so a key is split by length, not by underscores.
 */

export const KEY_SECRET_LENGTH = 43;
const SECRET = /^[A-Za-z0-9_-]{43}$/;
/** Platform names: lower-case letters and digits (e.g. `tradingview`, `ninjatrader`). */
const PLATFORM = /^[a-z][a-z0-9]{1,31}$/;

export type KeyKind = 'custom' | 'platform' | 'research';

/** Which WebSocket session slot a key occupies: custom keys share one, platform keys another. */
export type SlotKind = 'custom' | 'platform';

export interface KeyInfo {
	kind: KeyKind;
	/** `custom`, the platform name, or `research`: the whoami `integration` value. */
	integration: string;
	/** The non-secret prefix, e.g. `gexbot_custom_`. */
	prefix: string;
}

/** Classifies a key by its form; undefined when it matches none of the three formats. */
export function classifyKey(key: string): KeyInfo | undefined {
	if (typeof key !== 'string' || key.length <= KEY_SECRET_LENGTH) return undefined;
	const prefix = key.slice(0, -KEY_SECRET_LENGTH);
	if (!SECRET.test(key.slice(-KEY_SECRET_LENGTH))) return undefined;
	if (prefix === 'research_') return { kind: 'research', integration: 'custom', prefix };
	if (prefix === 'gexbot_custom_') return { kind: 'custom', integration: 'custom', prefix };
	const platform = /^gexbot_([a-z0-9]+)_$/.exec(prefix);
	if (platform && PLATFORM.test(platform[1]) && platform[1] !== 'research') {
		return { kind: 'platform', integration: platform[1], prefix };
	}
	return undefined;
}

export function isKey(key: unknown): key is string {
	return typeof key === 'string' && classifyKey(key) !== undefined;
}

/** The session slot of a key kind; research keys have no streaming slot. */
export function slotOf(kind: KeyKind): SlotKind | undefined {
	return kind === 'research' ? undefined : kind;
}

/**
 * The masked key id whoami returns: prefix, ellipsis, last four characters. Never reveals more
 * than four characters of the secret; a string that is not a key is masked to its first three
 * characters so that a typo in a settings form does not echo the whole value.
 */
export function maskKey(key: string): string {
	const info = classifyKey(key);
	const last4 = key.slice(-4);
	if (info) return `${info.prefix}…${last4}`;
	return key.length > 8 ? `${key.slice(0, 3)}…${last4}` : '…';
}

/**
 * The key of an `Authorization` header value. `Bearer <key>` is the documented form; the
 * service's 2025 example programs send `Basic <raw key>`, and HTTP clients given the key as a
 * user name (Python `requests` auth=(key, '')) send `Basic base64(key:)`: both are aliases.
 * `missing` when the header is absent or empty, `malformed` when it is neither scheme.
 */
export function parseBearer(
	header: string | null | undefined
): { ok: true; key: string } | { ok: false; reason: 'missing' | 'malformed' } {
	if (header === null || header === undefined || header.trim() === '') {
		return { ok: false, reason: 'missing' };
	}
	const m = /^(Bearer|Basic)\s+(\S+)\s*$/i.exec(header.trim());
	if (!m) return { ok: false, reason: 'malformed' };
	if (m[1].toLowerCase() === 'bearer') return { ok: true, key: m[2] };
	return { ok: true, key: basicCredential(m[2]) };
}

/**
 * The key inside a Basic credential: the raw token when it is not base64 of `user:password`
 * (a key has `_`, outside the standard base64 alphabet, so a raw key never decodes), else the
 * user name, or the password when the user name is empty.
 */
function basicCredential(token: string): string {
	if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token) || token.length % 4 !== 0) return token;
	let text: string;
	try {
		text = atob(token);
	} catch {
		return token;
	}
	const colon = text.indexOf(':');
	// Only printable ASCII credentials count as decoded; anything else was a raw token.
	if (colon < 0 || !/^[\x21-\x7e]*:[\x21-\x7e]*$/.test(text)) return token;
	const user = text.slice(0, colon);
	return user !== '' ? user : text.slice(colon + 1);
}

/**
 * A fresh key of `kind` from 32 random bytes (Web Crypto, available in Node 20 and browsers).
 * For the embedded service's demo accounts and tests.
 */
export function generateKey(kind: KeyKind, platform = 'custom'): string {
	const bytes = new Uint8Array(32);
	globalThis.crypto.getRandomValues(bytes);
	let bin = '';
	for (const b of bytes) bin += String.fromCharCode(b);
	const secret = btoa(bin).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
	if (kind === 'research') return `research_${secret}`;
	if (kind === 'custom') return `gexbot_custom_${secret}`;
	if (!PLATFORM.test(platform) || platform === 'custom' || platform === 'research') {
		throw new RangeError(`invalid platform name: ${platform}`);
	}
	return `gexbot_${platform}_${secret}`;
}
