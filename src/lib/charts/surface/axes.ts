/**
 * Tick marks of the surface's three axes in box coordinates (see geometry.ts), with their
 * labels: strike or moneyness along x, days to expiry along z, the metric's value along y.
 */
import { ticks } from 'd3';
import { formatStrike } from '../../components/format/format';
import { toBoxX, toBoxY, toBoxZ, type SurfaceFrame } from './geometry';

export interface AxisTick {
	/** Position along the axis in box coordinates. */
	at: number;
	label: string;
}

export interface SurfaceAxes {
	x: AxisTick[];
	z: AxisTick[];
	y: AxisTick[];
	xTitle: string;
	zTitle: string;
}

/** DTE marks a trader reads a term axis by. */
const DTE_MARKS = [0, 1, 2, 7, 14, 30, 60, 90, 180, 365, 730, 1095];
/** Closer than this (box units) and two z labels overlap. */
const MIN_Z_GAP = 0.18;

export function surfaceAxes(frame: SurfaceFrame, formatValue: (v: number) => string): SurfaceAxes {
	const x = ticks(frame.xMin, frame.xMax, 5).map((v) => ({
		at: toBoxX(frame, v),
		label: frame.axis === 'moneyness' ? `${Math.round(v * 100)}%` : formatStrike(v)
	}));
	const z: AxisTick[] = [];
	for (const d of [frame.dteMin, ...DTE_MARKS, frame.dteMax]) {
		if (d < frame.dteMin || d > frame.dteMax) continue;
		const at = toBoxZ(frame, d);
		if (z.some((t) => Math.abs(t.at - at) < MIN_Z_GAP)) continue;
		z.push({ at, label: `${d}d` });
	}
	const y =
		frame.hi === frame.lo
			? [{ at: 0.5, label: formatValue(frame.lo) }]
			: ticks(frame.lo, frame.hi, 4).map((v) => ({ at: toBoxY(frame, v), label: formatValue(v) }));
	return {
		x,
		z: z.sort((a, b) => b.at - a.at),
		y,
		xTitle: frame.axis === 'moneyness' ? 'Moneyness (strike / spot)' : 'Strike',
		zTitle: 'Days to expiry (√ scale)'
	};
}
