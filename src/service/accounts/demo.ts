/**
 * The built-in demo accounts, used when no accounts file is given: one per level (classic,
 * state, orderflow, quant) and a quant account with the research add-on. Keys are derived
 * from a fixed string, so they are the same on every run and machine (a launcher or a test can
 * rely on them); they are demo credentials for a local simulation, not secrets.
 */
import { createHash } from 'node:crypto';
import type { Level } from '../quota/allowances';
import type { AccountKey, AccountRecord, AccountsFile } from './file';

const DEMO_SEED = 'gexdeck embedded service demo key v1';
const CREATED = '2026-01-05T14:00:00Z';

/** 43 base64url characters derived from the fixed seed and a label. */
function demoSecret(label: string): string {
	return createHash('sha256').update(`${DEMO_SEED}:${label}`).digest('base64url');
}

function customKey(id: string): AccountKey {
	return {
		key: `gexbot_custom_${demoSecret(`${id}:custom`)}`,
		label: 'demo script',
		product: 'gexbot',
		integration: 'custom',
		created_at: CREATED,
		expires_at: null,
		revoked: false
	};
}

function demoAccount(id: string, maxLevel: Level, addons: string[] = []): AccountRecord {
	const order: Level[] = ['classic', 'state', 'orderflow', 'quant'];
	const levels = order.slice(0, order.indexOf(maxLevel) + 1);
	const keys = [customKey(id)];
	if (addons.includes('research')) {
		keys.push({
			key: `research_${demoSecret(`${id}:research`)}`,
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
			key: `gexbot_ninjatrader_${demoSecret(`${id}:ninjatrader`)}`,
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

/** The demo set (fresh objects on every call). */
export function demoAccounts(): AccountsFile {
	return {
		accounts: [
			demoAccount('demo-classic', 'classic'),
			demoAccount('demo-state', 'state'),
			demoAccount('demo-orderflow', 'orderflow'),
			demoAccount('demo-quant', 'quant'),
			demoAccount('demo-research', 'quant', ['research'])
		]
	};
}
