/**
 * GET /v2/research/{ticker}/{metric}: datasets computed from the research chain (quotes at the
 * 15-minute floor in market hours, the previous close otherwise). json (default) and csv are
 * served; chart formats (png, jpeg, svg, pdf, webp) answer 415, since this server renders no
 * images. `type` and `theme` only style charts and do not change data.
 */
import type { ServerResponse } from 'node:http';
import { parseResearchQuery } from '../../lib/contract/research';
import type { Principal } from '../accounts/registry';
import { spend, type ServiceContext } from './context';
import { HttpError, sendJson } from './respond';
import { chainRecords } from './research/contracts';
import { researchCsv } from './research/csv';
import { researchDataset } from './research/dataset';
import { parseMetric } from './research/metrics';

export function research(
	ctx: ServiceContext,
	res: ServerResponse,
	principal: Principal,
	ticker: string,
	metric: string,
	query: URLSearchParams
): void {
	const parsed = parseResearchQuery(query);
	if (!parsed.ok) throw new HttpError(400, parsed.error);
	const q = parsed.value;
	const format = q.format ?? 'json';
	if (format !== 'json' && format !== 'csv') {
		throw new HttpError(
			415,
			`format=${format} is a chart image, which this server does not render; use format=json or format=csv.`
		);
	}
	const spec = parseMetric(metric);
	if (!spec) throw new HttpError(400, `Unknown research metric '${metric}'.`);
	const chain = ctx.market.researchChain(ticker);
	if (!chain) throw new HttpError(404, `No research data for ticker '${ticker}'.`);
	const result = researchDataset(chainRecords(chain), metric, spec, q);
	spend(ctx, principal, 'api_research_command');
	if (format === 'csv') {
		const body = Buffer.from(researchCsv(result));
		res.writeHead(200, {
			'Content-Type': 'text/csv; charset=utf-8',
			'Content-Length': body.length,
			'Content-Disposition': `inline; filename="${ticker}_${metric}.csv"`
		});
		res.end(body);
		return;
	}
	sendJson(res, 200, result);
}
