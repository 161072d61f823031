/**
 * The surface's colour scale: value -> RGB through a 256-entry lookup table of d3's Turbo
 * ramp (trimmed at both ends, whose near-black and dark red vanish on the dark theme). The table
 * is computed once, so colouring a 6,000-vertex grid is a few array reads per vertex, and the
 * legend is drawn from the same function, so the colours on screen and in the legend agree.
 */
import { interpolateTurbo, rgb } from 'd3';

const LUT_SIZE = 256;
const RAMP_START = 0.08;
const RAMP_END = 0.95;

/** RGB in 0..1, three floats per entry. */
const LUT: Float32Array = (() => {
	const out = new Float32Array(LUT_SIZE * 3);
	for (let i = 0; i < LUT_SIZE; i++) {
		const c = rgb(interpolateTurbo(RAMP_START + ((RAMP_END - RAMP_START) * i) / (LUT_SIZE - 1)));
		out[i * 3] = c.r / 255;
		out[i * 3 + 1] = c.g / 255;
		out[i * 3 + 2] = c.b / 255;
	}
	return out;
})();

/** Colour of cells without a value (no quote at that strike and expiry). */
export const MISSING_RGB: readonly [number, number, number] = [0.5, 0.5, 0.5];

export interface ColorScale {
	readonly lo: number;
	readonly hi: number;
	/** Position of `value` on the ramp, clamped to 0..1 (0.5 for a flat domain). */
	t(value: number): number;
	/** Writes the colour of `value` into out[offset..offset+2]. */
	write(value: number, out: Float32Array, offset: number): void;
	/** CSS colour of `value`, for the legend and the hover readout. */
	css(value: number): string;
}

export function colorScale(lo: number, hi: number): ColorScale {
	if (!Number.isFinite(lo) || !Number.isFinite(hi) || lo > hi) {
		throw new RangeError(`colour scale domain must be finite and ordered, got [${lo}, ${hi}]`);
	}
	const span = hi - lo;
	const t = (value: number) => {
		if (span === 0) return 0.5;
		const x = (value - lo) / span;
		return x <= 0 ? 0 : x >= 1 ? 1 : x;
	};
	const index = (value: number) => Math.round(t(value) * (LUT_SIZE - 1)) * 3;
	return {
		lo,
		hi,
		t,
		write(value, out, offset) {
			if (!Number.isFinite(value)) {
				out[offset] = MISSING_RGB[0];
				out[offset + 1] = MISSING_RGB[1];
				out[offset + 2] = MISSING_RGB[2];
				return;
			}
			const k = index(value);
			out[offset] = LUT[k];
			out[offset + 1] = LUT[k + 1];
			out[offset + 2] = LUT[k + 2];
		},
		css(value) {
			if (!Number.isFinite(value)) return 'rgb(128 128 128)';
			const k = index(value);
			const c = (x: number) => Math.round(x * 255);
			return `rgb(${c(LUT[k])} ${c(LUT[k + 1])} ${c(LUT[k + 2])})`;
		}
	};
}

/** Evenly spaced legend stops (value, css colour), low to high. */
export function legendStops(scale: ColorScale, count = 8): { value: number; color: string }[] {
	const n = Math.max(2, count);
	return Array.from({ length: n }, (_, i) => {
		const value = scale.lo + ((scale.hi - scale.lo) * i) / (n - 1);
		return { value, color: scale.css(value) };
	});
}
