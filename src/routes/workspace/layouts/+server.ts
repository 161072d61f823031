/**
 * /workspace/layouts: the signed-in user's own named workspace layouts on the server
 * (users/layoutStore.ts). GET lists them; POST {"name", "query"} saves one (replacing the same
 * name); DELETE ?name= deletes one. Every role may, a viewer too, and only ever their own: the
 * owner is the session's user (the implicit admin '' without teams mode). State-changing calls
 * need the CSRF header (hooks.server.ts).
 */
import { json } from '@sveltejs/kit';
import { appDatabase } from '$lib/server/db/appDb';
import { checkLayout, LayoutError, LayoutStore } from '$lib/server/users/layoutStore';
import { parseWorkspace } from '$lib/state/workspace';
import { ViewStateError } from '$lib/state/viewState';
import type { RequestHandler } from './$types';

const NO_STORE = { 'cache-control': 'no-store' };
const refuse = (status: number, error: string) => json({ error }, { status, headers: NO_STORE });
const owner = (locals: App.Locals) => locals.user?.id ?? '';

export const GET: RequestHandler = async ({ locals }) =>
	json(
		{ layouts: await new LayoutStore(appDatabase()).list(owner(locals)) },
		{ headers: NO_STORE }
	);

export const POST: RequestHandler = async ({ request, locals }) => {
	let body: { name?: unknown; query?: unknown } | null;
	try {
		body = (await request.json()) as typeof body;
	} catch {
		return refuse(400, 'The body must be JSON: {"name": "...", "query": "p=...&g=..."}.');
	}
	try {
		// Within the bounds, and a workspace of at least one panel as the page reads it.
		const { query } = checkLayout(body?.name, body?.query);
		if (parseWorkspace(new URLSearchParams(query)).panels.length === 0) {
			return refuse(400, 'A layout has at least one panel.');
		}
		const saved = await new LayoutStore(appDatabase()).save(owner(locals), body?.name, body?.query);
		return json(saved, { headers: NO_STORE });
	} catch (err) {
		if (err instanceof LayoutError) return refuse(err.status, err.message);
		if (err instanceof ViewStateError) return refuse(400, `Not a workspace: ${err.message}.`);
		throw err;
	}
};

export const DELETE: RequestHandler = async ({ url, locals }) => {
	const name = url.searchParams.get('name') ?? '';
	if (!(await new LayoutStore(appDatabase()).remove(owner(locals), name))) {
		return refuse(404, `You have no layout named “${name}”.`);
	}
	return json({ deleted: name }, { headers: NO_STORE });
};
