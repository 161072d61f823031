/**
 * The levels path's points from a day overview's lines (GET /history/.../overview?cells=none):
 * one per step, spot, zero gamma and the majors by volume.
 */
import type { DecodedOverview } from '$lib/relay/overviewBody';

export interface PathPoint {
	t: number;
	spot: number;
	zeroGamma: number;
	majorPos: number;
	majorNeg: number;
}

export function pointsOfOverview(o: DecodedOverview): PathPoint[] {
	return Array.from(o.times, (t, i) => ({
		t,
		spot: o.spot[i],
		zeroGamma: o.zeroGamma[i],
		majorPos: o.majorPos[i],
		majorNeg: o.majorNeg[i]
	}));
}

/** Points farther apart than this (s) are a hole in the recording: the line breaks there. */
export const PATH_GAP_S = 180;

/**
 * One series of the path as SVG path data: the points with a price (finite, positive) joined
 * in time order, a new subpath after a hole of more than PATH_GAP_S, so an outage of the
 * recording is not drawn as a straight line across it (a missed step or two is joined).
 */
export function pathData(
	points: readonly PathPoint[],
	key: keyof Omit<PathPoint, 't'>,
	x: (t: number) => number,
	y: (v: number) => number
): string {
	let d = '';
	let last = Number.NaN;
	for (const p of points) {
		const v = p[key];
		if (!Number.isFinite(v) || !(v > 0)) continue;
		const joined = p.t - last <= PATH_GAP_S;
		d += `${joined ? 'L' : 'M'}${Math.round(x(p.t) * 10) / 10},${Math.round(y(v) * 10) / 10}`;
		last = p.t;
	}
	return d;
}
