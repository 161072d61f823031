import { describe, expect, it } from 'vitest';
import { allowed, permissionFor, ROLE_PERMISSIONS } from './roles';

describe('the role table', () => {
	it('gives admin everything, trader views and trading, viewer views only', () => {
		expect(ROLE_PERMISSIONS).toEqual({
			admin: ['view', 'trade', 'admin'],
			trader: ['view', 'trade'],
			viewer: ['view']
		});
	});

	it.each([
		['GET', '/SPX/classic/gex_full', '', 'view'],
		['GET', '/admin', '', 'admin'],
		['GET', '/admin/audit.jsonl', '', 'admin'],
		['POST', '/admin', '?/addUser', 'admin'],
		['POST', '/account', '?/saveKeys', 'admin'],
		['POST', '/account', '?/createToken', 'trade'],
		['POST', '/account', '?/saveRecording', 'trade'],
		['POST', '/alerts', '?/saveRule', 'trade'],
		['POST', '/alerts', '?/testWebhook', 'trade'],
		['POST', '/recording/watchlist', '', 'trade'],
		// Each user's own workspace layouts: a viewer saves and deletes theirs.
		['POST', '/workspace/layouts', '', 'view'],
		['DELETE', '/workspace/layouts', '', 'view'],
		['POST', '/login', '?/logout', 'view'],
		['POST', '/SPX/eod', '?/open', 'view'],
		['POST', '/mcp', '', 'view'],
		['POST', '/api/SPX/classic/gex_full', '', 'admin'],
		// A route or action the table does not name is an admin's.
		['POST', '/alerts', '?/somethingNew', 'admin'],
		['DELETE', '/watchlist', '', 'admin']
	])('%s %s%s needs %s', (method, path, search, permission) => {
		expect(permissionFor(method, path, search)).toBe(permission);
	});

	it('refuses a viewer every shared change (not their own layouts) and a trader the account', () => {
		expect(allowed('viewer', 'POST', '/alerts', '?/saveRule')).toBe(false);
		expect(allowed('viewer', 'POST', '/workspace/layouts')).toBe(true);
		expect(allowed('trader', 'POST', '/alerts', '?/saveRule')).toBe(true);
		expect(allowed('trader', 'POST', '/account', '?/saveKeys')).toBe(false);
		expect(allowed('trader', 'GET', '/admin')).toBe(false);
		expect(allowed('admin', 'POST', '/account', '?/saveKeys')).toBe(true);
		expect(allowed('viewer', 'GET', '/account')).toBe(true);
	});
});
