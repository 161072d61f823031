import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { demoAccounts } from './demo';
import { AccountsFileError, parseAccountsFile, parseAccountsText } from './file';
import { AccountRegistry } from './registry';

const SECRET = 'A'.repeat(43);

/** The example of the issue text: the public shape of the file. */
function example(): Record<string, unknown> {
	return {
		accounts: [
			{
				_id: 'acct-1',
				role: 'user',
				level: ['classic', 'state', 'orderflow', 'quant'],
				max_level: 'quant',
				addons: ['research'],
				entitlements: {},
				permissions: ['app_access', 'api_rest_access', 'api_websocket_access'],
				account: {
					commercial: false,
					commercial_delegate: false,
					display_use: false,
					child: false,
					managed: false,
					delegated: false,
					suspended: false
				},
				created: '2026-01-05T14:00:00Z',
				group_limit: 150,
				allowances: { api_majors: { daily: 3, monthly: 90 } },
				keys: [
					{
						key: `gexbot_custom_${SECRET}`,
						label: 'my script',
						product: 'gexbot',
						integration: 'custom',
						created_at: '2026-01-05T14:00:00Z',
						expires_at: null,
						revoked: false
					},
					{
						key: `research_${'B'.repeat(43)}`,
						label: 'research',
						product: 'research',
						integration: 'custom',
						created_at: '2026-01-05T14:00:00Z'
					}
				]
			}
		]
	};
}

function errorPath(doc: unknown): string | undefined {
	try {
		parseAccountsFile(doc);
		return undefined;
	} catch (err) {
		if (err instanceof AccountsFileError) return err.path;
		throw err;
	}
}

describe('accounts file', () => {
	it('accepts the documented example and the demo set', () => {
		const parsed = parseAccountsFile(example());
		expect(parsed.accounts[0].allowances).toEqual({ api_majors: { daily: 3, monthly: 90 } });
		expect(() => parseAccountsFile(JSON.parse(JSON.stringify(demoAccounts())))).not.toThrow();
	});

	it('names the offending path', () => {
		// eslint-disable-next-line @typescript-eslint/no-explicit-any -- free-form mutation of a JSON document
		const cases: [(d: any) => void, string][] = [
			[(d) => (d.accounts[0].max_level = 'QUANT'), 'accounts[0].max_level'],
			[(d) => (d.accounts[0].level[1] = 'gold'), 'accounts[0].level[1]'],
			[(d) => (d.accounts[0].keys[0].key = 'gexbot_custom_short'), 'accounts[0].keys[0].key'],
			[(d) => (d.accounts[0].keys[1].expires_at = 'tomorrow'), 'accounts[0].keys[1].expires_at'],
			[
				(d) => (d.accounts[0].allowances.api_bogus = { daily: 1, monthly: 1 }),
				'accounts[0].allowances.api_bogus'
			],
			[
				(d) => (d.accounts[0].allowances.api_majors.daily = -1),
				'accounts[0].allowances.api_majors.daily'
			],
			[(d) => (d.accounts[0].account.child = 'no'), 'accounts[0].account.child'],
			[(d) => (d.accounts[0].group_limit = 0), 'accounts[0].group_limit'],
			[(d) => (d.accounts[0].addons = []), 'accounts[0].keys[1].product'],
			[
				(d) => (d.accounts[0].keys[0].integration = 'tradingview'),
				'accounts[0].keys[0].integration'
			],
			[(d) => (d.accounts[0].nickname = 'x'), 'accounts[0].nickname'],
			[(d) => d.accounts.push(structuredClone(d.accounts[0])), 'accounts[1]._id'],
			[(d) => (d.accounts = []), 'accounts']
		];
		for (const [mutate, path] of cases) {
			const doc = example();
			mutate(doc);
			expect(errorPath(doc), path).toBe(path);
		}
		expect(() => parseAccountsText('{', 'x.json')).toThrow(/^x\.json: not valid JSON/);
	});

	it('any single-field type corruption is refused with a path under that field', () => {
		const fields = [
			'_id',
			'role',
			'level',
			'max_level',
			'addons',
			'entitlements',
			'permissions',
			'account',
			'created',
			'keys'
		];
		fc.assert(
			fc.property(
				fc.constantFrom(...fields),
				fc.oneof(fc.integer(), fc.constant(true), fc.constant([1]), fc.constant({ x: 1 })),
				(field, bad) => {
					// An object is a valid entitlements value.
					fc.pre(!(field === 'entitlements' && typeof bad === 'object' && !Array.isArray(bad)));
					const doc = example() as { accounts: Record<string, unknown>[] };
					doc.accounts[0][field] = bad;
					const path = errorPath(doc);
					expect(path ?? '').toMatch(new RegExp(`^accounts\\[0\\]\\.${field}`));
				}
			),
			{ numRuns: 200 }
		);
	});

	it('registry: expired and revoked keys are unusable; demo keys are stable', () => {
		// eslint-disable-next-line @typescript-eslint/no-explicit-any -- free-form mutation of a JSON document
		const doc = example() as any;
		doc.accounts[0].keys[0].expires_at = '2020-01-01T00:00:00Z';
		doc.accounts[0].keys[1].revoked = true;
		const registry = new AccountRegistry(parseAccountsFile(doc));
		expect(registry.check(`gexbot_custom_${SECRET}`)).toEqual({ ok: false, reason: 'expired' });
		expect(registry.check(`research_${'B'.repeat(43)}`)).toEqual({ ok: false, reason: 'revoked' });
		expect(registry.check(`research_${'C'.repeat(43)}`)).toEqual({ ok: false, reason: 'unknown' });
		const a = new AccountRegistry(demoAccounts()).summaries();
		const b = new AccountRegistry(demoAccounts()).summaries();
		expect(a).toEqual(b);
		expect(a.map((s) => s._id)).toEqual([
			'demo-classic',
			'demo-state',
			'demo-orderflow',
			'demo-quant',
			'demo-research'
		]);
		expect(a[0].keys[0].key).toMatch(/^gexbot_custom_[A-Za-z0-9_-]{43}$/);
	});
});
