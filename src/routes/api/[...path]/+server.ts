import type { RequestHandler } from './$types';
import { forwardApi } from '$lib/server/fastApi';

/**
 * /api/<upstream path> through SvelteKit: the thin adapter for what the node:http fast path
 * (the same forwardApi, $lib/server/fastApi) leaves to SvelteKit: methods other than GET/HEAD,
 * which the proxy refuses once the CSRF check passed, and under `vite dev` the requests before
 * the init hook mounted the fast path. The gate and security headers come from hooks.server.ts.
 */
const forward: RequestHandler = async ({ url, request, locals }) => {
	const result = await forwardApi(
		request.method,
		url.pathname.slice('/api/'.length) + url.search,
		locals.user?.id
	);
	return new Response(request.method === 'HEAD' ? null : (result.body as BodyInit), {
		status: result.status,
		headers: result.headers
	});
};

export const GET = forward;
export const HEAD = forward;
export const POST = forward;
export const PUT = forward;
export const PATCH = forward;
export const DELETE = forward;
