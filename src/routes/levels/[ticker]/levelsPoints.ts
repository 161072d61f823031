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
