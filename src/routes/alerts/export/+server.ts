/**
 * `GET /alerts/export`: the alert rules and webhooks as one JSON file (a download), the format
 * the import on /alerts reads back. The request gate of hooks.server.ts covers it like every
 * route; it holds webhook URLs, so it is never cached.
 */
import { alertService } from '$lib/server/alerts/alertsMount';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = () => {
	const body = JSON.stringify(alertService().exportFile(), null, '\t') + '\n';
	const day = new Date().toISOString().slice(0, 10);
	return new Response(body, {
		headers: {
			'content-type': 'application/json; charset=utf-8',
			'content-disposition': `attachment; filename="gexdeck-alerts-${day}.json"`,
			'cache-control': 'no-store'
		}
	});
};
