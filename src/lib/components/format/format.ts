/**
 * The one number format of the dashboard: every view, the levels page and the exports format
 * numbers here (eslint forbids toFixed / toLocaleString / Intl.NumberFormat in views).
 *
 * - One minus sign: U+2212 "−" everywhere (d3's own), never a hyphen; a plus on signed changes.
 * - Strikes as the strike grid has them: 7,580 and 7,582.5, never 7,580.00.
 * - Prices (spot, zero gamma) with two decimals; futures rounded to their tick (ES 0.25).
 * - GEX in its unit: the service's GEX numbers are $ millions per 1% move of the underlying
 *   (docs/UPSTREAM.md), shown as dollars with a prefix: −$24.8B, +$512M.
 * - Sizes in binary units: 23.1 MB, not 23622 KB.
 */
import { format } from 'd3';
import { formatEtDateTime } from '$lib/contract/newYorkTime';

export const MINUS = '\u2212';
/** The unit of every GEX number the service sends (chains, profiles, sums, max changes). */
export const GEX_UNIT = '$ per 1% move';

const si = format('.3~s');
const fixed2 = format(',.2f');
const strikeFmt = format(',~f');
const count = format(',d');

function signOf(v: number, plus: boolean): string {
	return v < 0 ? MINUS : v > 0 && plus ? '+' : '';
}

/** A number with a fixed count of decimals and the one minus sign (no grouping). */
export function formatFixed(value: number, digits: number, plus = false): string {
	if (!Number.isFinite(value)) return '–';
	const s = Math.abs(value).toFixed(digits);
	return Number(s) === 0 ? s : `${signOf(value, plus)}${s}`;
}

function usd(millions: number, plus: boolean): string {
	if (!Number.isFinite(millions)) return '–';
	const abs = Math.abs(millions) * 1e6;
	if (abs < 1) return '$0';
	return `${signOf(millions, plus)}$${si(abs).replace('G', 'B')}`;
}

/** GEX from the service's $ millions (per 1% move) as dollars: -24_800 -> "−$24.8B". */
export function formatGex(millions: number): string {
	return usd(millions, false);
}

/** A change of GEX ($ millions per 1% move), signed: 512 -> "+$512M". */
export function formatGexChange(millions: number): string {
	return usd(millions, true);
}

/** Dollars with a prefix: 2.5e9 -> "$2.5B", -480_000 -> "−$480k" (the chain import's own sums). */
export function formatUsd(dollars: number): string {
	return usd(dollars / 1e6, false);
}

/** A unitless magnitude with a prefix: 51.5k, −228, 1.71M (greek profiles, whose unit varies). */
export function formatSi(value: number): string {
	if (!Number.isFinite(value)) return '–';
	if (Math.abs(value) < 1) return format('.2~f')(value).replace('-', MINUS);
	return si(value).replace('G', 'B');
}

/** Spot, zero gamma, any price: "7,520.03". */
export function formatPrice(value: number): string {
	return Number.isFinite(value) ? fixed2(value).replace('-', MINUS) : '–';
}

/** A strike as the grid lists it: "7,580", "7,582.5". */
export function formatStrike(value: number): string {
	return Number.isFinite(value) ? strikeFmt(value).replace('-', MINUS) : '–';
}

/** Rounds to `tick` without binary noise (7590.25, never 7590.250000001). */
export function roundToTick(value: number, tick: number): number {
	const decimals = String(tick).split('.')[1]?.length ?? 0;
	return Number((Math.round(value / tick) * tick).toFixed(decimals));
}

/** A futures price on its tick grid, with the tick's decimals: ES 7600.92 -> "7,601.00". */
export function formatTickPrice(value: number, tick: number): string {
	if (!Number.isFinite(value)) return '–';
	const decimals = String(tick).split('.')[1]?.length ?? 0;
	return format(`,.${decimals}f`)(roundToTick(value, tick)).replace('-', MINUS);
}

/** A signed number with fixed decimals: "+1.50", "−0.041". */
export function formatSigned(value: number, digits = 2): string {
	return formatFixed(value, digits, true);
}

/** A distance in index points: "+12.5 pts", "−20.05 pts". */
export function formatPoints(value: number): string {
	if (!Number.isFinite(value)) return '–';
	return `${signOf(value, true)}${strikeFmt(Math.round(Math.abs(value) * 100) / 100)} pts`;
}

/** A fraction as a percentage: 0.0123 -> "1.23%" (`plus` signs it: "+1.23%"). */
export function formatPercent(fraction: number, digits = 1, plus = false): string {
	if (!Number.isFinite(fraction)) return '–';
	return `${formatFixed(fraction * 100, digits, plus)}%`;
}

/** A count with thousands separators: "12,345". */
export function formatCount(n: number): string {
	return Number.isFinite(n) ? count(Math.round(n)) : '–';
}

/** Bytes in binary units: 512 B, 23.1 MB, 1.25 GB. */
export function formatBytes(bytes: number): string {
	if (!Number.isFinite(bytes) || bytes < 0) return '–';
	const units = ['B', 'KB', 'MB', 'GB', 'TB'];
	let v = bytes;
	let i = 0;
	while (v >= 1024 && i < units.length - 1) {
		v /= 1024;
		i++;
	}
	if (i === 0) return `${v} B`;
	return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ${units[i]}`;
}

/** Milliseconds or seconds of work: "120 ms", "3.4 s". */
export function formatDuration(ms: number): string {
	if (!Number.isFinite(ms)) return '–';
	return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** Unix ms as the viewer's local date and 24-hour time (token and recording times). */
export function formatLocalDateTime(ms: number): string {
	return new Date(ms).toLocaleString('en-US', { hour12: false });
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
