/**
 * Orderflow numbers as a trader reads them: flows, DEX, vanna and charm arrive in $ millions and
 * are shown as signed dollars with a unit prefix (+$12.3M, −$1.25B); ratios signed with fixed
 * decimals; the GEX ratio (call share of GEX) as a percentage.
 */
import { format } from 'd3';
import { MINUS } from './format';

const si = format('.3~s');

function signOf(v: number): string {
	return v > 0 ? '+' : v < 0 ? MINUS : '';
}

/** A value in $ millions as signed dollars: 12.34 -> "+$12.3M", -1250 -> "−$1.25B". */
export function formatUsdMillions(v: number): string {
	if (!Number.isFinite(v)) return '–';
	const abs = Math.abs(v) * 1e6;
	if (abs < 1) return '$0';
	return `${signOf(v)}$${si(abs).replace('G', 'B')}`;
}

/** A signed ratio: 0.1234 -> "+0.123". */
export function formatSignedRatio(v: number, digits = 3): string {
	if (!Number.isFinite(v)) return '–';
	const s = Math.abs(v).toFixed(digits);
	return Number(s) === 0 ? s : `${signOf(v)}${s}`;
}

/** A share in [0, 1] as a percentage: 0.625 -> "62.5%". */
export function formatShare(v: number): string {
	if (!Number.isFinite(v)) return '–';
	return `${(v * 100).toFixed(1)}%`;
}
