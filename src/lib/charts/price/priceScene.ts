/**
 * The price chart's marks as SVG path strings from candles, level steps and the scales: up
 * candles hollow and down candles filled (direction is not told by colour alone), wicks, and
 * each level as a step line that breaks where the level is not named. Pure.
 */
import type { Candle, LevelStep } from './candles';

type Scale = (v: number) => number;

const r2 = (v: number) => Math.round(v * 100) / 100;

export interface CandlePaths {
	up: string;
	down: string;
	wicks: string;
}

/** Candles with t in [t0, t1) as three paths; a body is at least 1 px tall. */
export function candlePaths(
	candles: readonly Candle[],
	x: Scale,
	y: Scale,
	t0: number,
	t1: number,
	seconds = 60
): CandlePaths {
	let up = '';
	let down = '';
	let wicks = '';
	const w = Math.max(1, (x(t0 + seconds) - x(t0)) * 0.7);
	for (const c of candles) {
		if (c.t + seconds <= t0 || c.t >= t1) continue;
		const mid = x(c.t + seconds / 2);
		const top = y(Math.max(c.open, c.close));
		const h = Math.max(1, y(Math.min(c.open, c.close)) - top);
		const body = `M${r2(mid - w / 2)} ${r2(top)}h${r2(w)}v${r2(h)}h${r2(-w)}z`;
		if (c.close >= c.open) up += body;
		else down += body;
		wicks += `M${r2(mid)} ${r2(y(c.high))}V${r2(y(c.low))}`;
	}
	return { up, down, wicks };
}

/**
 * A level's steps between t0 and `end` (the last data time) as a path: flat while the value
 * holds, a vertical joint where it changes, a break where it is null.
 */
export function stepPath(steps: readonly LevelStep[], x: Scale, y: Scale, end: number): string {
	let d = '';
	let pen = false;
	for (let k = 0; k < steps.length; k++) {
		const s = steps[k];
		const next = k + 1 < steps.length ? Math.min(steps[k + 1].t, end) : end;
		if (s.t > end) break;
		if (s.value === null) {
			pen = false;
			continue;
		}
		const py = r2(y(s.value));
		d += `${pen ? 'L' : 'M'}${r2(x(s.t))} ${py}H${r2(x(next))}`;
		pen = true;
	}
	return d;
}

/** Low and high of the candles and level values inside [t0, t1], or null when none. */
export function priceExtent(
	candles: readonly Candle[],
	levels: readonly (readonly LevelStep[])[],
	t0: number,
	t1: number,
	seconds = 60
): [number, number] | null {
	let lo = Infinity;
	let hi = -Infinity;
	for (const c of candles) {
		if (c.t + seconds <= t0 || c.t > t1) continue;
		lo = Math.min(lo, c.low);
		hi = Math.max(hi, c.high);
	}
	for (const steps of levels) {
		for (let k = 0; k < steps.length; k++) {
			const v = steps[k].value;
			const until = k + 1 < steps.length ? steps[k + 1].t : Infinity;
			if (v === null || until <= t0 || steps[k].t > t1) continue;
			lo = Math.min(lo, v);
			hi = Math.max(hi, v);
		}
	}
	return lo <= hi ? [lo, hi] : null;
}
