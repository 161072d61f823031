/** How a research metric's values read: IV in percent, exposures in dollars, levels as strikes. */
import { format } from 'd3';
import { formatGex, formatPrice, formatStrike } from '$lib/components/format/format';
import { isLevelMetric } from '$lib/state/researchView';

const pct = format('.1%');
const greek = format('.4~g');

export function metricFormatter(metric: string): (v: number) => string {
	if (/^iv_/.test(metric)) return (v) => (Number.isFinite(v) ? pct(v) : '–');
	// A level is a strike (7,400) or an interpolated price (gamma flip 7,384.404772 → 7,384.40).
	if (isLevelMetric(metric)) return (v) => (Number.isInteger(v) ? formatStrike(v) : formatPrice(v));
	if (/_(oi|vol|both)(_skew_adj)?$/.test(metric) || /^(open_interest|oi|volume)$/.test(metric)) {
		return formatGex;
	}
	return (v) => (Number.isFinite(v) ? greek(v) : '–');
}

const SIDES: Record<string, string> = { bid: 'bid', ask: 'ask', mid: 'mid' };
const BASES: Record<string, string> = { oi: 'by OI', vol: 'by volume', both: 'by OI + volume' };
const NAMED: Record<string, string> = {
	dex: 'Delta exposure',
	gex: 'Gamma exposure',
	tex: 'Theta exposure',
	vex: 'Vega exposure'
};

/** A readable name: "IV (mid)", "Gamma exposure by OI", "Charm exposure by volume, skew-adj.". */
export function metricLabel(metric: string): string {
	let m = /^([a-z]+)_(bid|ask|mid)$/.exec(metric);
	if (m) return `${m[1] === 'iv' ? 'IV' : m[1][0].toUpperCase() + m[1].slice(1)} (${SIDES[m[2]]})`;
	m = /^(?:([a-z]+)_ex|(dex|gex|tex|vex))_(oi|vol|both)(_skew_adj)?$/.exec(metric);
	if (m) {
		const name = m[2] ? NAMED[m[2]] : `${m[1][0].toUpperCase()}${m[1].slice(1)} exposure`;
		return `${name} ${BASES[m[3]]}${m[4] ? ', skew-adjusted' : ''}`;
	}
	return metric.replaceAll('_', ' ').replace(/^./, (c) => c.toUpperCase());
}
