/**
 * The Orderflow view's session charts: what each draws and how its numbers read. The flows are
 * cumulative for the session, in $ millions as the feed sends them (positive = customers
 * bought): DEX flow is delta bought, GEX flow is signed gamma bought ($ per 1% move, calls +
 * and puts −), convexity flow is gamma bought regardless of side.
 */
import { formatPrice } from '$lib/components/format/format';
import { formatUsdMillions } from '$lib/components/format/orderflowFormat';
import { FLOW_SERIES, type FlowSeriesKey } from '$lib/stream/series/orderflowSeries';
import type { TimelineChart } from '$lib/charts/timeline/timeChart';
import type { FlowChartId, FlowExpiry } from '$lib/state/orderflowView';

export const CHART_LABELS: Record<FlowChartId, string> = {
	dex: 'DEX flow',
	gex: 'GEX flow',
	cvr: 'Convexity flow',
	spot: 'Spot'
};

export const EXPIRY_LABELS: Record<FlowExpiry, string> = { zero: '0DTE', one: 'Next' };

const FLOWS: Record<
	Exclude<FlowChartId, 'spot'>,
	{ zero: FlowSeriesKey; one: FlowSeriesKey; unit: string }
> = {
	dex: { zero: 'dexoflow', one: 'one_dexoflow', unit: 'net delta bought, $' },
	gex: { zero: 'gexoflow', one: 'one_gexoflow', unit: 'signed gamma bought, $ per 1% move' },
	cvr: { zero: 'cvroflow', one: 'one_cvroflow', unit: 'gamma bought, $ per 1% move' }
};

const index = (k: FlowSeriesKey) => FLOW_SERIES.indexOf(k);

export function timelineCharts(charts: FlowChartId[], expiries: FlowExpiry[]): TimelineChart[] {
	return charts.map((id): TimelineChart => {
		if (id === 'spot') {
			return {
				id,
				title: CHART_LABELS.spot,
				unit: 'last price',
				format: formatPrice,
				zero: false,
				lines: [{ id: 'spot', series: index('spot'), label: 'Spot', cls: 'spot' }]
			};
		}
		const f = FLOWS[id];
		return {
			id,
			title: CHART_LABELS[id],
			unit: f.unit,
			format: formatUsdMillions,
			zero: true,
			lines: expiries.map((e) => ({
				id: f[e],
				series: index(f[e]),
				label: EXPIRY_LABELS[e],
				cls: e
			}))
		};
	});
}
