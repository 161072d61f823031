/** Number formats of the charts and header figures: readable at a glance, sign-aware. */
import { format } from 'd3';
import { formatEtDateTime } from '$lib/contract/newYorkTime';

const si = format('.3~s');
const fixed2 = format(',.2f');
const strikeFmt = format(',~f');

/** GEX values: 1.71M, -228, 51.5k. d3 writes micro as µ and uses a proper minus sign. */
export function formatGex(value: number): string {
	if (!Number.isFinite(value)) return '–';
	if (Math.abs(value) < 1) return format('.2~f')(value);
	return si(value).replace('G', 'B');
}

export function formatPrice(value: number): string {
	return Number.isFinite(value) ? fixed2(value) : '–';
}

export function formatStrike(value: number): string {
	return strikeFmt(value);
}

export function formatSigned(value: number, digits = 2): string {
	const s = value.toFixed(digits);
	return value > 0 ? `+${s}` : s;
}

/** Unix seconds as ET wall time: "Nov 20, 15:59:58 ET". */
export function formatEtTime(unixSeconds: number): string {
	return `${formatEtDateTime(unixSeconds)} ET`;
}

export function formatAge(ms: number): string {
	const s = Math.max(0, Math.round(ms / 1000));
	if (s < 60) return `${s}s`;
	if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
	if (s < 86_400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
	return `${Math.floor(s / 86_400)}d`;
}
