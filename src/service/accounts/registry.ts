/**
 * Looks keys up to their accounts and decides whether a key is usable. Key lookups are one Map
 * read, because every data request of the snapshot fast path does one.
 */
import { readFileSync } from 'node:fs';
import { classifyKey, type KeyKind } from '../../lib/contract/keys';
import { resolveAllowances, type Allowances } from '../quota/allowances';
import { demoAccounts, demoAccountsFor } from './demo';
import { parseAccountsText, type AccountKey, type AccountRecord, type AccountsFile } from './file';

export const DEFAULT_GROUP_LIMIT = 150;

/** An authenticated caller: the account, the key used and the account's allowances. */
export interface Principal {
	account: AccountRecord;
	key: AccountKey;
	keyKind: KeyKind;
	allowances: Allowances;
}

export type KeyCheck =
	{ ok: true; principal: Principal } | { ok: false; reason: 'unknown' | 'expired' | 'revoked' };

/** What a launcher needs to know about an account (the `--ready-json` line, `--print-keys`). */
export interface AccountSummary {
	_id: string;
	max_level: string;
	addons: string[];
	keys: { key: string; integration: string; product: string }[];
}

export class AccountRegistry {
	private readonly byKey = new Map<string, Principal>();

	constructor(
		readonly file: AccountsFile,
		/** Key expiry is judged against wall time: keys are real credentials, not market data. */
		private readonly wallClock: () => number = Date.now
	) {
		for (const account of file.accounts) {
			const allowances = resolveAllowances(account.max_level, account.allowances);
			for (const key of account.keys) {
				const info = classifyKey(key.key);
				if (!info) throw new Error(`account ${account._id}: malformed key`);
				this.byKey.set(key.key, { account, key, keyKind: info.kind, allowances });
			}
		}
	}

	/**
	 * Accounts from `path`, or the demo set when no path is given: with `dataDir`, that folder's
	 * own random demo keys (demoAccountsFor), else the fixed default seed's.
	 */
	static load(path?: string, dataDir?: string): AccountRegistry {
		if (!path) return new AccountRegistry(dataDir ? demoAccountsFor(dataDir) : demoAccounts());
		let text: string;
		try {
			text = readFileSync(path, 'utf8');
		} catch (err) {
			throw new Error(`${path}: cannot read accounts file (${(err as Error).message})`, {
				cause: err
			});
		}
		return new AccountRegistry(parseAccountsText(text, path));
	}

	check(key: string): KeyCheck {
		const principal = this.byKey.get(key);
		if (!principal) return { ok: false, reason: 'unknown' };
		if (principal.key.revoked) return { ok: false, reason: 'revoked' };
		const expires = principal.key.expires_at;
		if (expires && Date.parse(expires) <= this.wallClock()) return { ok: false, reason: 'expired' };
		return { ok: true, principal };
	}

	get accounts(): readonly AccountRecord[] {
		return this.file.accounts;
	}

	groupLimit(account: AccountRecord): number {
		return account.group_limit ?? DEFAULT_GROUP_LIMIT;
	}

	summaries(): AccountSummary[] {
		return this.file.accounts.map((a) => ({
			_id: a._id,
			max_level: a.max_level,
			addons: [...a.addons],
			keys: a.keys.map((k) => ({ key: k.key, integration: k.integration, product: k.product }))
		}));
	}
}
