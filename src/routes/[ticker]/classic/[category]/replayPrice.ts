/**
 * The price chart beside Classic's histogram draws from the day Classic's replay already holds
 * (the server's overview lines or recording of the day and, today, the browser's ring), with the newest live
 * chain after it: one request for the day, not a second load of it by the chart (issue 25).
 * Pure: unit tests call it directly.
 */
import { etDay } from '$lib/contract/newYorkTime';
import { PriceSamples, type PriceSample } from '$lib/charts/price/priceSeries';
import type { HeatMetric } from '$lib/charts/heatmap/heatmapGrid';
import type { DayLines, ReplayPoint } from '$lib/stream/backfill/overviewTimeline';
import type { RingChunk } from '$lib/stream/ring/ringChunk';
import type { ColumnarGex } from '$lib/wire/columnar';

const NAMES = ['spot', 'zeroGamma', 'majorPosVol', 'majorPosOi', 'majorNegVol', 'majorNegOi'];

/**
 * The price chart's samples of the replay's moments (ascending), then `live` when newer. A
 * moment of the day's overview reads its lines (`lines`); a snapshot held in the browser, its
 * chunk's scalars.
 */
export function priceOfReplay(
	frames: readonly ReplayPoint[],
	metric: HeatMetric,
	live?: ColumnarGex,
	lines?: DayLines
): PriceSamples {
	// A live chain of a newer session than the recording starts the chart afresh.
	const last = frames.at(-1);
	if (live && last && etDay(live.timestamp) > etDay(last.timestamp)) frames = [];
	const samples: PriceSample[] = [];
	// Scalar columns per chunk, looked up once (a day is ~4,680 frames in ~390 chunks).
	let chunk: RingChunk | undefined;
	let at: number[] = [];
	for (const point of frames) {
		if (lines && point.column >= 0) {
			const c = point.column;
			samples.push({
				timestamp: point.timestamp,
				spot: lines.spot[c],
				zeroGamma: lines.zeroGamma[c],
				majorPos: lines.majorPos[metric][c],
				majorNeg: lines.majorNeg[metric][c]
			});
			continue;
		}
		const f = point.frame;
		if (!f) continue;
		if (f.chunk !== chunk) {
			chunk = f.chunk;
			at = NAMES.map((n) => f.chunk.scalarNames.indexOf(n));
		}
		const width = f.chunk.scalarNames.length;
		const value = (j: number) => (at[j] < 0 ? NaN : f.chunk.scalars[f.row * width + at[j]]);
		samples.push({
			timestamp: f.timestamp,
			spot: value(0),
			zeroGamma: value(1),
			majorPos: value(metric === 'vol' ? 2 : 3),
			majorNeg: value(metric === 'vol' ? 4 : 5)
		});
	}
	if (live && (samples.length === 0 || live.timestamp > samples[samples.length - 1].timestamp)) {
		samples.push({
			timestamp: live.timestamp,
			spot: live.spot,
			zeroGamma: live.zeroGamma,
			majorPos: metric === 'vol' ? live.majorPosVol : live.majorPosOi,
			majorNeg: metric === 'vol' ? live.majorNegVol : live.majorNegOi
		});
	}
	return new PriceSamples(samples);
}
