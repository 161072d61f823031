/**
 * What each role may do: the one table the request hook (hooks.server.ts), the /api fast path,
 * the /stream upgrade and the /admin page ask. Pure: a role and a request in, an answer out.
 *
 * - admin: everything, including keys, upstream, recording settings, users, every integration
 *   token and the audit log;
 * - trader: every view, their own alert rules, webhooks, integration tokens and always-record
 *   list (the routes keep each to its owner);
 * - viewer: the views only (reads).
 */
export const ROLES = ['admin', 'trader', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
	return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** The kinds of act a request can be. */
export type Permission = 'view' | 'trade' | 'admin';

/** The table: which role may do which kind of act. */
export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
	admin: ['view', 'trade', 'admin'],
	trader: ['view', 'trade'],
	viewer: ['view']
};

export function may(role: Role, permission: Permission): boolean {
	return ROLE_PERMISSIONS[role].includes(permission);
}

/** Form actions (`?/name`) per page that change what the account or the team shares. */
const ACTIONS: Readonly<Record<string, Readonly<Record<string, Permission>>>> = {
	'/account': {
		saveKeys: 'admin',
		clearKeys: 'admin',
		switchAccount: 'admin',
		// each user's own always-record list; its retention part is refused to a non-admin
		saveRecording: 'trade',
		createToken: 'trade',
		revokeToken: 'trade'
	},
	'/alerts': {
		saveRule: 'trade',
		pauseRule: 'trade',
		deleteRule: 'trade',
		testRule: 'trade',
		saveWebhook: 'trade',
		deleteWebhook: 'trade',
		testWebhook: 'trade',
		importRules: 'trade'
	}
};

/** Paths whose state-changing requests are a trader's (not per form action). */
const TRADE_POSTS: ReadonlySet<string> = new Set(['/recording/watchlist']);

/** Paths where each user changes only their own things, which a viewer may too. */
const OWN_POSTS: ReadonlySet<string> = new Set(['/workspace/layouts']);

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The permission a request needs. `search` is the URL's query (a form action is `?/name`).
 * Anything not named here that changes state needs an admin: a new route is closed until the
 * table says otherwise.
 */
export function permissionFor(method: string, pathname: string, search = ''): Permission {
	if (pathname === '/admin' || pathname.startsWith('/admin/')) return 'admin';
	if (SAFE.has(method.toUpperCase())) return 'view';
	// Signing in and out is everyone's; the eod page's `open` action only reads a file.
	if (pathname === '/login') return 'view';
	// MCP's JSON-RPC is POSTed, and its tools only read (mcp/tools.ts).
	if (pathname === '/mcp') return 'view';
	if (/^\/[^/]+\/eod$/.test(pathname)) return 'view';
	if (TRADE_POSTS.has(pathname)) return 'trade';
	if (OWN_POSTS.has(pathname)) return 'view';
	const action = /^\?\/([A-Za-z]+)/.exec(search)?.[1];
	const perPage = ACTIONS[pathname];
	if (perPage && action && perPage[action]) return perPage[action];
	return 'admin';
}

/** Whether `role` may make this request. */
export function allowed(role: Role, method: string, pathname: string, search = ''): boolean {
	return may(role, permissionFor(method, pathname, search));
}
