/**
 * The floor page (bench/latency.bench.ts `--floor`): a bare tab that draws each streamed chain
 * of the watched group as bars on one canvas, fed by latency.floor-worker.ts, and marks it in
 * the animation frame after, exactly as the app does (PAINTED_MARK, latencyMarks.ts). What the
 * machine costs between the service and a pixel with no app around it: the floor the app's
 * tick-to-pixel is measured against.
 */
import { PAINTED_MARK, type PaintedDetail } from '../src/lib/stream/transport/latencyMarks';

interface Chain {
	group: string;
	timestamp: number;
	gexVol: Float64Array;
	receivedAt: number;
	postedAt: number;
}

const wall = () => performance.timeOrigin + performance.now();
const canvas = document.createElement('canvas');
canvas.width = 1000;
canvas.height = 600;
document.body.style.cssText = 'margin:0;background:#0b0e14';
document.body.append(canvas);
const ctx = canvas.getContext('2d')!;

function draw(values: Float64Array): void {
	ctx.clearRect(0, 0, canvas.width, canvas.height);
	let max = 0;
	for (const v of values) if (Number.isFinite(v)) max = Math.max(max, Math.abs(v));
	const h = canvas.height / Math.max(1, values.length);
	const mid = canvas.width / 2;
	for (let i = 0; i < values.length; i++) {
		const v = values[i];
		if (!Number.isFinite(v) || max === 0) continue;
		const w = (v / max) * mid;
		ctx.fillStyle = v >= 0 ? '#3fb950' : '#f85149';
		ctx.fillRect(w >= 0 ? mid : mid + w, i * h, Math.abs(w), Math.max(1, h - 0.5));
	}
}

export function startFloor(workerUrl: string, streamUrl: string, group: string): void {
	const worker = new Worker(workerUrl, { type: 'module' });
	worker.onmessage = (ev: MessageEvent<Chain>) => {
		const arrivedAt = wall();
		const chain = ev.data;
		draw(chain.gexVol);
		const appliedAt = wall();
		requestAnimationFrame(() => {
			const detail: PaintedDetail = {
				group: chain.group,
				timestamp: chain.timestamp,
				receivedAt: chain.receivedAt,
				postedAt: chain.postedAt,
				arrivedAt,
				appliedAt,
				paintedAt: wall()
			};
			performance.mark(PAINTED_MARK, { detail });
		});
	};
	worker.postMessage({ url: streamUrl, group });
}
