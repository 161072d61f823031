/**
 * The built-in demo accounts, used when no accounts file is given: one per level (classic,
 * state, orderflow, quant) and a quant account with the research add-on. Keys are derived from
 * a seed: the service run from the command line uses a random one generated once per data
 * folder (`<data-dir>/demo-keys.seed`, 0600; `--print-keys` lists them), so another local
 * process cannot know them in advance; in-process tests use the fixed default seed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Level } from '../quota/allowances';
import type { AccountKey, AccountRecord, AccountsFile } from './file';

const DEMO_SEED = 'gexdeck embedded service demo key v1';
const CREATED = '2026-01-05T14:00:00Z';

/** 43 base64url characters derived from the seed and a label. */
function demoSecret(seed: string, label: string): string {
	return createHash('sha256').update(`${seed}:${label}`).digest('base64url');
}

function customKey(seed: string, id: string): AccountKey {
	return {
		key: `gexbot_custom_${demoSecret(seed, `${id}:custom`)}`,
		label: 'demo script',
		product: 'gexbot',
		integration: 'custom',
		created_at: CREATED,
		expires_at: null,
		revoked: false
	};
}

function demoAccount(
	seed: string,
	id: string,
	maxLevel: Level,
	addons: string[] = []
): AccountRecord {
	const order: Level[] = ['classic', 'state', 'orderflow', 'quant'];
	const levels = order.slice(0, order.indexOf(maxLevel) + 1);
	const keys = [customKey(seed, id)];
	if (addons.includes('research')) {
		keys.push({
			key: `research_${demoSecret(seed, `${id}:research`)}`,
			label: 'demo research',
			product: 'research',
			integration: 'custom',
			created_at: CREATED,
			expires_at: null,
			revoked: false
		});
	}
	if (maxLevel === 'quant') {
		// A platform-integration key, so the second WebSocket slot can be exercised too.
		keys.push({
			key: `gexbot_ninjatrader_${demoSecret(seed, `${id}:ninjatrader`)}`,
			label: 'demo platform',
			product: 'gexbot',
			integration: 'ninjatrader',
			created_at: CREATED,
			expires_at: null,
			revoked: false
		});
	}
	return {
		_id: id,
		role: 'user',
		level: levels,
		max_level: maxLevel,
		addons,
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
		created: CREATED,
		keys
	};
}

/** The demo set for `seed` (fresh objects on every call). */
export function demoAccounts(seed = DEMO_SEED): AccountsFile {
	return {
		accounts: [
			demoAccount(seed, 'demo-classic', 'classic'),
			demoAccount(seed, 'demo-state', 'state'),
			demoAccount(seed, 'demo-orderflow', 'orderflow'),
			demoAccount(seed, 'demo-quant', 'quant'),
			demoAccount(seed, 'demo-research', 'quant', ['research'])
		]
	};
}

/** Where a data folder keeps its demo key seed. */
export const DEMO_SEED_FILE = 'demo-keys.seed';

/** The data folder's demo key seed: generated once (random, 0600), then read. */
export function demoSeedFor(dataDir: string): string {
	const path = join(dataDir, DEMO_SEED_FILE);
	try {
		const seed = readFileSync(path, 'utf8').trim();
		if (seed) return seed;
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
	}
	mkdirSync(dataDir, { recursive: true, mode: 0o700 });
	const seed = randomBytes(32).toString('base64url');
	try {
		// wx: two processes starting at once on one folder keep the first one's seed.
		writeFileSync(path, `${seed}\n`, { mode: 0o600, flag: 'wx' });
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === 'EEXIST') return demoSeedFor(dataDir);
		throw err;
	}
	chmodSync(path, 0o600);
	return seed;
}

/** The demo accounts of a data folder (its own random keys). */
export function demoAccountsFor(dataDir: string): AccountsFile {
	return demoAccounts(demoSeedFor(dataDir));
}
