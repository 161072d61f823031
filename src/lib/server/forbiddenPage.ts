/**
 * The page a signed-in user meets when their role may not open a page (the request gate's 403
 * for a browser's navigation): what the page needs, what they have, and who can grant it. It is
 * answered by the gate before SvelteKit (no route of a refused request may run, not even a load),
 * so it is a whole HTML document of its own: the theme's colours in one inline style allowed by
 * its hash in the page's CSP, no script.
 */
import { createHash } from 'node:crypto';
import { config } from './config';
import { appDatabase } from './db/appDb';
import type { Permission, Role } from './users/roles';

export interface ForbiddenInfo {
	/** Who asked, and with which role. */
	name: string;
	role: Role;
	needs: Permission;
	/** The enabled admins of the team (who can change a role on /admin). */
	admins: readonly string[];
	/** The identity provider's name when the user signs in through it (it decides the role). */
	provider?: string;
}

const STYLE = `:root{color-scheme:dark light;--bg:#0e1116;--panel:#161b22;--border:#2d3642;--text:#e6edf3;--muted:#8b98a8;--accent:#4da3ff}
@media (prefers-color-scheme: light){:root{--bg:#f7f8fa;--panel:#fff;--border:#d0d7de;--text:#1f2328;--muted:#59636e;--accent:#0969da}}
body{margin:0;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,sans-serif}
main{max-width:40rem;margin:3rem auto;padding:1.2rem 1.4rem;background:var(--panel);border:1px solid var(--border);border-radius:8px}
h1{margin-top:0;font-size:1.4rem}.muted{color:var(--muted)}a{color:var(--accent);display:inline-block;padding:.5rem 0}`;

const STYLE_HASH = `sha256-${createHash('sha256').update(STYLE).digest('base64')}`;

export const FORBIDDEN_CSP =
	`default-src 'none'; style-src '${STYLE_HASH}'; frame-ancestors 'none'; base-uri 'none'; ` +
	"form-action 'none'";

const ROLE_FOR: Readonly<Record<Permission, Role>> = {
	view: 'viewer',
	trade: 'trader',
	admin: 'admin'
};

const WHAT: Readonly<Record<Permission, string>> = {
	view: 'reading the views',
	trade: 'alert rules, webhooks and the recorded watchlist',
	admin: 'keys, recording settings, integration tokens, users and the audit log'
};

function escape(text: string): string {
	return text.replace(
		/[&<>"']/g,
		(c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!
	);
}

/** The 403 page's HTML. */
export function forbiddenPage(info: ForbiddenInfo): string {
	const needed = ROLE_FOR[info.needs];
	const admins = info.admins.map((a) => `<strong>${escape(a)}</strong>`).join(', ');
	const who = admins
		? `An admin of this dashboard (${admins}) can give you the ${needed} role on the Admin page.`
		: `An admin of this dashboard can give you the ${needed} role on the Admin page.`;
	const provider = info.provider
		? `<p>You sign in through ${escape(info.provider)}, whose groups set your role at each ` +
			`sign-in: your team's admin at ${escape(info.provider)} can add you to the group that ` +
			`gives the ${needed} role.</p>`
		: '';
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Not allowed · gexdeck</title><style>${STYLE}</style></head>
<body><main data-testid="forbidden-page">
<h1>This page needs the ${needed} role</h1>
<p role="alert">You are signed in as <strong>${escape(info.name)}</strong> with the ${info.role} role, which does not include ${WHAT[info.needs]}.</p>
<p>${who}</p>
${provider}<p class="muted">A role change ends your sessions at once: sign in again afterwards.</p>
<p><a href="/">Back to the dashboard</a></p>
</main></body></html>
`;
}

/** Whether a refused request is a browser navigation to a page (not /api, not a data fetch). */
export function wantsPage(method: string, pathname: string, accept: string | null): boolean {
	return (
		(method === 'GET' || method === 'HEAD') &&
		!pathname.startsWith('/api/') &&
		!pathname.endsWith('/__data.json') &&
		(accept ?? '').includes('text/html')
	);
}

/** The 403 answer for `user` refused `needs`: the team's admins and their provider asked. */
export async function forbiddenAnswer(
	user: { id: string; name: string; role: Role },
	needs: Permission,
	headers: Record<string, string>
): Promise<Response> {
	const db = appDatabase();
	const admins = await db.all(
		`SELECT name FROM users WHERE role = ? AND disabled = ? ORDER BY name LIMIT 5`,
		['admin', 0]
	);
	const me = await db.get(`SELECT oidc_subject FROM users WHERE id = ?`, [user.id]);
	const html = forbiddenPage({
		name: user.name,
		role: user.role,
		needs,
		admins: admins.map((a) => String(a.name)),
		provider: me?.oidc_subject ? config().oidc?.name : undefined
	});
	return new Response(html, {
		status: 403,
		headers: {
			...headers,
			'content-type': 'text/html; charset=utf-8',
			'cache-control': 'no-store',
			'content-security-policy': FORBIDDEN_CSP
		}
	});
}
