/**
 * What the price chart reads of a day: per calculation, its time, spot, zero gamma and the
 * majors of the metric shown. The heatmap's grid is one (the price view loads the day as the
 * heatmap does); Classic builds one from the day its replay already loaded (PriceSamples), so
 * the chart beside the histogram asks the server for nothing of its own.
 */
import { lastAtOrBefore } from '../heatmap/heatmapGrid';

export interface PriceSeries {
	readonly length: number;
	readonly times: ArrayLike<number>;
	readonly spot: ArrayLike<number>;
	readonly zeroGamma: ArrayLike<number>;
	readonly majorPos: ArrayLike<number>;
	readonly majorNeg: ArrayLike<number>;
	/** Index of the last calculation at or before `t` (unix s), -1 before the first. */
	columnAt(t: number): number;
}

/** One calculation as the price chart takes it. */
export interface PriceSample {
	timestamp: number;
	spot: number;
	zeroGamma: number;
	majorPos: number;
	majorNeg: number;
}

/** A PriceSeries from samples in ascending time (later equal times are dropped). */
export class PriceSamples implements PriceSeries {
	readonly length: number;
	readonly times: Float64Array;
	readonly spot: Float64Array;
	readonly zeroGamma: Float64Array;
	readonly majorPos: Float64Array;
	readonly majorNeg: Float64Array;

	constructor(samples: readonly PriceSample[]) {
		const n = samples.length;
		const [times, spot, zeroGamma, majorPos, majorNeg] = Array.from(
			{ length: 5 },
			() => new Float64Array(n)
		);
		let k = 0;
		for (const s of samples) {
			if (k > 0 && s.timestamp <= times[k - 1]) continue;
			times[k] = s.timestamp;
			spot[k] = s.spot;
			zeroGamma[k] = s.zeroGamma;
			majorPos[k] = s.majorPos;
			majorNeg[k] = s.majorNeg;
			k++;
		}
		this.length = k;
		this.times = times.subarray(0, k);
		this.spot = spot.subarray(0, k);
		this.zeroGamma = zeroGamma.subarray(0, k);
		this.majorPos = majorPos.subarray(0, k);
		this.majorNeg = majorNeg.subarray(0, k);
	}

	columnAt(t: number): number {
		return lastAtOrBefore(this.times, this.length, t);
	}
}
