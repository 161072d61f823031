/**
 * `GET /alerts/export`: the alert rules and webhooks as one JSON file (a download), the format
 * the import on /alerts reads back: the asker's own (an admin's: everyone's). The request gate of hooks.server.ts covers it like every
 * route; it holds webhook URLs, so it is never cached.
 */
import { alertService } from '$lib/server/alerts/alertsMount';
import { OWNER_ASKER } from '$lib/server/alerts/store';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = ({ locals }) => {
	const who = locals.user ?? OWNER_ASKER;
	const body = JSON.stringify(alertService().exportFile(who), null, '\t') + '\n';
	const day = new Date().toISOString().slice(0, 10);
	return new Response(body, {
		headers: {
			'content-type': 'application/json; charset=utf-8',
			'content-disposition': `attachment; filename="gexdeck-alerts-${day}.json"`,
			'cache-control': 'no-store'
		}
	});
};
