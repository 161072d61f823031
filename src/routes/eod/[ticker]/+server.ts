/**
 * GET /eod/<ticker>: the service's EOD report zip, streamed through the dashboard server (the
 * key stays here; the file is piped, never held in memory). Behind the dashboard's gate.
 */
import { Readable } from 'node:stream';
import { isTicker } from '$lib/contract/tickers';
import { config } from '$lib/server/config';
import { eodDownload } from '$lib/server/recorder/eodReports';
import { upstreamTarget } from '$lib/server/upstream';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = async ({ params }) => {
	const json = { 'content-type': 'application/json', 'cache-control': 'no-store' };
	if (!isTicker(params.ticker)) {
		return new Response(JSON.stringify({ error: `Unknown ticker ${params.ticker}` }), {
			status: 404,
			headers: json
		});
	}
	const target = await upstreamTarget();
	let res;
	try {
		res = await eodDownload(
			{ baseUrl: target.baseUrl, key: target.customKey, userAgent: config().userAgent },
			params.ticker
		);
	} catch (e) {
		return new Response(
			JSON.stringify({ error: `Upstream unreachable: ${(e as Error).message}` }),
			{
				status: 502,
				headers: json
			}
		);
	}
	const headers: Record<string, string> = {
		'content-type': String(res.headers['content-type'] ?? 'application/octet-stream'),
		'cache-control': 'no-store'
	};
	const disposition = res.headers['content-disposition'];
	if (typeof disposition === 'string') headers['content-disposition'] = disposition;
	const length = res.headers['content-length'];
	if (typeof length === 'string') headers['content-length'] = length;
	return new Response(Readable.toWeb(res) as ReadableStream, {
		status: res.statusCode ?? 502,
		headers
	});
};
