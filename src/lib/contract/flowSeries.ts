/**
 * The series of the orderflow feed a session view keeps and the day overview stores: the
 * cumulative session flows (DEX, GEX and convexity flow, 0DTE and next expiry) and spot, by their
 * REST names, in storage order (a stored chunk and an overview body name them, so the list may
 * grow). Shared by the page (src/lib/stream/series/orderflowSeries.ts) and the server's flow
 * overview (src/lib/server/overview/flowOverviewRow.ts).
 */
import type { OrderflowBody } from './schemas';

export const FLOW_SERIES = [
	'dexoflow',
	'gexoflow',
	'cvroflow',
	'one_dexoflow',
	'one_gexoflow',
	'one_cvroflow',
	'spot'
] as const;
export type FlowSeriesKey = (typeof FLOW_SERIES)[number];
export const SERIES_COUNT = FLOW_SERIES.length;

/** The series values of an orderflow payload, in FLOW_SERIES order. */
export function flowValues(body: OrderflowBody): number[] {
	return FLOW_SERIES.map((k) => body[k]);
}
