/**
 * GET /admin/audit.jsonl (admin only, as all of /admin): the whole audit log as JSON lines, a
 * download. Entries never hold a key, password or token (users/audit.ts).
 */
import { appDatabase } from '$lib/server/db/appDb';
import { auditJsonLines } from '$lib/server/users/audit';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = async () =>
	new Response(await auditJsonLines(appDatabase()), {
		headers: {
			'content-type': 'application/x-ndjson; charset=utf-8',
			'content-disposition': 'attachment; filename="gexdeck-audit.jsonl"',
			'cache-control': 'no-store'
		}
	});
