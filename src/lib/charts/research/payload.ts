/**
 * The JSON of GET /research/{ticker}/{metric}?format=json (docs/UPSTREAM.md, Research): one of a
 * per-contract table, skew series, term rows, a surface grid or chain levels. Checked on
 * arrival so a payload of another shape is a sentence on screen, not a blank chart.
 */

// The JSON shape is the contract's (the embedded service answers with it); checked at run time
// below.
import type { ContractType, ResearchResult, TableRow } from '../../contract/research';

export type { ContractType, TableRow };
export type ResearchPayload = ResearchResult;

export class PayloadError extends Error {}

const VIEWS = ['table', 'skew', 'term', 'surface', 'level'];

function need(ok: boolean, what: string): void {
	if (!ok) throw new PayloadError(`unexpected research response: ${what}`);
}

export function parseResearchPayload(raw: unknown): ResearchPayload {
	const p = raw as ResearchPayload;
	need(typeof p === 'object' && p !== null, 'not a JSON object');
	need(typeof p.ticker === 'string' && typeof p.metric === 'string', 'no ticker or metric');
	need(Number.isFinite(p.timestamp) && Number.isFinite(p.spot), 'no timestamp or spot');
	need(VIEWS.includes(p.view), `unknown view '${String(p.view)}'`);
	switch (p.view) {
		case 'table':
			need(Array.isArray(p.rows), 'a table without rows');
			break;
		case 'skew':
			need(Array.isArray(p.series), 'a skew without series');
			for (const s of p.series!) need(Array.isArray(s.points), `series ${s.expiry} has no points`);
			break;
		case 'term':
			need(Array.isArray(p.term) || typeof p.level === 'object', 'a term view without rows');
			break;
		case 'surface':
			need(typeof p.surface === 'object' && p.surface !== null, 'a surface view without a grid');
			break;
		case 'level':
			need(typeof p.level === 'object' && p.level !== null, 'a level view without levels');
			break;
	}
	return p;
}

/**
 * Metrics whose values add up across contracts (exposures, open interest, volume); the others
 * (greeks and prices per contract) are averaged when contracts are combined. The same rule as
 * the service's contract_agg / expiry_agg.
 */
export function isAdditiveMetric(metric: string): boolean {
	return (
		/_(oi|vol|both)(_skew_adj)?$/.test(metric) ||
		metric === 'open_interest' ||
		metric === 'oi' ||
		metric === 'volume'
	);
}
