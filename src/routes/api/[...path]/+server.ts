import type { RequestHandler } from './$types';
import { upstreamProxy } from '$lib/server/services';

/** /api/<upstream path>: the allowlisted, key-holding proxy (see $lib/server/proxy). */
const forward: RequestHandler = async ({ params, url, request }) => {
	const result = await upstreamProxy().handle(request.method, params.path, url.searchParams);
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
