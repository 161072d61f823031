/**
 * The accounts file (`--accounts <file>`): a public interface, since users write their own to
 * test their clients. It is validated completely at start; the first problem is reported with
 * the JSON path that holds it (`accounts[2].keys[0].expires_at: ...`).
 */
import { classifyKey } from '../../lib/contract/keys';
import {
	LEVELS,
	QUOTA_POOLS,
	type Allowance,
	type Level,
	type QuotaPool
} from '../quota/allowances';

export interface AccountFlags {
	commercial: boolean;
	commercial_delegate: boolean;
	display_use: boolean;
	child: boolean;
	managed: boolean;
	delegated: boolean;
	suspended: boolean;
}

export interface AccountKey {
	key: string;
	label: string;
	product: 'gexbot' | 'research';
	integration: string;
	created_at: string;
	expires_at?: string | null;
	revoked?: boolean;
}

export interface AccountRecord {
	_id: string;
	role: string;
	level: Level[];
	max_level: Level;
	addons: string[];
	entitlements: Record<string, unknown>;
	permissions: string[];
	account: AccountFlags;
	created: string | null;
	group_limit?: number;
	allowances?: Partial<Record<QuotaPool, Allowance>>;
	keys: AccountKey[];
}

export interface AccountsFile {
	accounts: AccountRecord[];
}

export class AccountsFileError extends Error {
	constructor(
		readonly path: string,
		message: string
	) {
		super(`${path}: ${message}`);
	}
}

const ACCOUNT_FIELDS = new Set([
	'_id',
	'role',
	'level',
	'max_level',
	'addons',
	'entitlements',
	'permissions',
	'account',
	'created',
	'group_limit',
	'allowances',
	'keys'
]);
const FLAG_FIELDS = [
	'commercial',
	'commercial_delegate',
	'display_use',
	'child',
	'managed',
	'delegated',
	'suspended'
] as const;
const KEY_FIELDS = new Set([
	'key',
	'label',
	'product',
	'integration',
	'created_at',
	'expires_at',
	'revoked'
]);

const isObject = (v: unknown): v is Record<string, unknown> =>
	typeof v === 'object' && v !== null && !Array.isArray(v);

function fail(path: string, message: string): never {
	throw new AccountsFileError(path, message);
}

function str(v: unknown, path: string): string {
	if (typeof v !== 'string' || v.length === 0) fail(path, 'expected a non-empty string');
	return v;
}

function isoTime(v: unknown, path: string): string {
	const s = str(v, path);
	if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(s)) {
		fail(path, `expected an ISO 8601 time such as 2026-01-05T14:00:00Z, got ${JSON.stringify(s)}`);
	}
	if (Number.isNaN(Date.parse(s))) fail(path, `not a real time: ${JSON.stringify(s)}`);
	return s;
}

function stringArray(v: unknown, path: string): string[] {
	if (!Array.isArray(v)) fail(path, 'expected an array of strings');
	return v.map((item, i) => str(item, `${path}[${i}]`));
}

function level(v: unknown, path: string): Level {
	if (typeof v !== 'string' || !(LEVELS as readonly string[]).includes(v)) {
		fail(path, `expected one of ${LEVELS.join(', ')} (lower case), got ${JSON.stringify(v)}`);
	}
	return v as Level;
}

function count(v: unknown, path: string): number {
	if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
		fail(path, `expected a non-negative integer, got ${JSON.stringify(v)}`);
	}
	return v;
}

function allowances(v: unknown, path: string): Partial<Record<QuotaPool, Allowance>> {
	if (!isObject(v)) fail(path, 'expected an object of pool -> {daily, monthly}');
	const out: Partial<Record<QuotaPool, Allowance>> = {};
	for (const [pool, value] of Object.entries(v)) {
		const p = `${path}.${pool}`;
		if (!(QUOTA_POOLS as readonly string[]).includes(pool)) {
			fail(p, `unknown quota pool; expected one of ${QUOTA_POOLS.join(', ')}`);
		}
		if (!isObject(value)) fail(p, 'expected {"daily": n, "monthly": n}');
		for (const k of Object.keys(value)) {
			if (k !== 'daily' && k !== 'monthly') fail(`${p}.${k}`, 'unknown field');
		}
		out[pool as QuotaPool] = {
			daily: count(value.daily, `${p}.daily`),
			monthly: count(value.monthly, `${p}.monthly`)
		};
	}
	return out;
}

function accountKey(v: unknown, path: string, addons: string[]): AccountKey {
	if (!isObject(v)) fail(path, 'expected a key object');
	for (const k of Object.keys(v)) if (!KEY_FIELDS.has(k)) fail(`${path}.${k}`, 'unknown field');
	const key = str(v.key, `${path}.key`);
	const product = str(v.product, `${path}.product`);
	const integration = str(v.integration, `${path}.integration`);
	const info = classifyKey(key);
	if (!info) {
		fail(
			`${path}.key`,
			'expected "gexbot_custom_", "gexbot_<platform>_" or "research_" + 43 characters [A-Za-z0-9_-]'
		);
	}
	if (product === 'research') {
		if (info.kind !== 'research') fail(`${path}.key`, 'a research key starts with "research_"');
		if (!addons.includes('research')) {
			fail(`${path}.product`, 'a research key needs the "research" add-on in addons');
		}
	} else if (product === 'gexbot') {
		if (info.kind === 'research')
			fail(`${path}.product`, 'a "research_" key has product "research"');
	} else {
		fail(`${path}.product`, `expected "gexbot" or "research", got ${JSON.stringify(product)}`);
	}
	if (info.integration !== integration) {
		fail(
			`${path}.integration`,
			`must be "${info.integration}" for a key starting "${info.prefix}"`
		);
	}
	const out: AccountKey = {
		key,
		label: typeof v.label === 'string' ? v.label : fail(`${path}.label`, 'expected a string'),
		product: product as AccountKey['product'],
		integration,
		created_at: isoTime(v.created_at, `${path}.created_at`)
	};
	if (v.expires_at !== undefined && v.expires_at !== null) {
		out.expires_at = isoTime(v.expires_at, `${path}.expires_at`);
	} else if (v.expires_at === null) out.expires_at = null;
	if (v.revoked !== undefined) {
		if (typeof v.revoked !== 'boolean') fail(`${path}.revoked`, 'expected a boolean');
		out.revoked = v.revoked;
	}
	return out;
}

function accountRecord(v: unknown, path: string): AccountRecord {
	if (!isObject(v)) fail(path, 'expected an account object');
	for (const k of Object.keys(v)) if (!ACCOUNT_FIELDS.has(k)) fail(`${path}.${k}`, 'unknown field');
	const levels = Array.isArray(v.level)
		? v.level.map((l, i) => level(l, `${path}.level[${i}]`))
		: fail(`${path}.level`, 'expected an array of levels');
	const maxLevel = level(v.max_level, `${path}.max_level`);
	const addons = stringArray(v.addons, `${path}.addons`);
	if (!isObject(v.entitlements)) fail(`${path}.entitlements`, 'expected an object');
	if (!isObject(v.account)) fail(`${path}.account`, 'expected an object of flags');
	const flags = {} as AccountFlags;
	for (const k of Object.keys(v.account)) {
		if (!(FLAG_FIELDS as readonly string[]).includes(k))
			fail(`${path}.account.${k}`, 'unknown flag');
	}
	for (const f of FLAG_FIELDS) {
		const value = v.account[f] ?? (f === 'suspended' ? false : undefined);
		if (typeof value !== 'boolean') fail(`${path}.account.${f}`, 'expected a boolean');
		flags[f] = value;
	}
	if (!Array.isArray(v.keys)) fail(`${path}.keys`, 'expected an array of keys');
	const record: AccountRecord = {
		_id: str(v._id, `${path}._id`),
		role: str(v.role, `${path}.role`),
		level: levels,
		max_level: maxLevel,
		addons,
		entitlements: v.entitlements,
		permissions: stringArray(v.permissions, `${path}.permissions`),
		account: flags,
		created: v.created === null ? null : isoTime(v.created, `${path}.created`),
		keys: v.keys.map((k, i) => accountKey(k, `${path}.keys[${i}]`, addons))
	};
	if (v.group_limit !== undefined) {
		const n = count(v.group_limit, `${path}.group_limit`);
		if (n < 1) fail(`${path}.group_limit`, 'must be at least 1');
		record.group_limit = n;
	}
	if (v.allowances !== undefined)
		record.allowances = allowances(v.allowances, `${path}.allowances`);
	return record;
}

/** Validate a parsed accounts document; throws AccountsFileError naming the offending path. */
export function parseAccountsFile(doc: unknown): AccountsFile {
	if (!isObject(doc)) fail('$', 'expected an object {"accounts": [...]}');
	for (const k of Object.keys(doc)) if (k !== 'accounts') fail(k, 'unknown field');
	if (!Array.isArray(doc.accounts) || doc.accounts.length === 0) {
		fail('accounts', 'expected a non-empty array of accounts');
	}
	const accounts = doc.accounts.map((a, i) => accountRecord(a, `accounts[${i}]`));
	const ids = new Map<string, number>();
	const keys = new Map<string, string>();
	accounts.forEach((a, i) => {
		if (ids.has(a._id)) fail(`accounts[${i}]._id`, `duplicate of accounts[${ids.get(a._id)}]._id`);
		ids.set(a._id, i);
		a.keys.forEach((k, j) => {
			const here = `accounts[${i}].keys[${j}].key`;
			if (keys.has(k.key)) fail(here, `the same key is already used at ${keys.get(k.key)}`);
			keys.set(k.key, here);
		});
	});
	return { accounts };
}

/** Parse and validate accounts JSON text (`source` names the file in errors). */
export function parseAccountsText(text: string, source: string): AccountsFile {
	let doc: unknown;
	try {
		doc = JSON.parse(text);
	} catch (err) {
		throw new Error(`${source}: not valid JSON (${(err as Error).message})`, { cause: err });
	}
	try {
		return parseAccountsFile(doc);
	} catch (err) {
		if (err instanceof AccountsFileError)
			throw new Error(`${source}: ${err.message}`, { cause: err });
		throw err;
	}
}
