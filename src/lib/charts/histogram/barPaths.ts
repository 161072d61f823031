/**
 * Bars of a dense strike window as three SVG paths (positive fill, negative fill, max change
 * outline) instead of one <rect> per strike. Past a few dozen bars each one is a few pixels
 * wide and per-element DOM work dominates an update: 400 rects cost about 4-5 ms of attribute
 * writes, style and layout per streamed second in Chromium, three path strings well under 1 ms.
 */

/** One bar's geometry in pixels (top-left corner, height) and what it marks. */
export interface BarGeometry {
	strike: number;
	x: number;
	y: number;
	h: number;
	positive: boolean;
	maxChange: boolean;
}

export interface BarPaths {
	pos: string;
	neg: string;
	/** Outlines of the max change strikes, drawn over the fills. */
	maxChange: string;
}

/**
 * Windows with more bars than this draw them as paths; narrower ones keep one element per bar
 * (with its strike as data). At this count bars are already under ~20 px wide on a desktop
 * chart, and nothing reads them one by one: the readout comes from the pointer's strike.
 */
export const DENSE_BAR_COUNT = 60;

/** The closed rectangle subpath of one bar of width `w`. */
function rectPath(b: BarGeometry, w: number): string {
	return `M${b.x} ${b.y}h${w}v${b.h}h${-w}z`;
}

export function barPaths(bars: readonly BarGeometry[], width: number): BarPaths {
	let pos = '';
	let neg = '';
	let maxChange = '';
	for (const b of bars) {
		const d = rectPath(b, width);
		if (b.positive) pos += d;
		else neg += d;
		if (b.maxChange) maxChange += d;
	}
	return { pos, neg, maxChange };
}
