/**
 * The chart cursor of the research charts: which x (strike, DTE) a pointer or the arrow keys
 * select among the sorted x values that have marks.
 */
import { bisector } from 'd3';

const center = bisector((v: number) => v).center;

/** The value of `sorted` nearest `v`, or null when there is none. */
export function nearestValue(sorted: readonly number[], v: number): number | null {
	return sorted.length ? sorted[center(sorted, v)] : null;
}

/**
 * The cursor after an arrow key: the next or previous value, clamped to the ends; from no
 * selection it starts at `start` (e.g. the strike at spot). Undefined when the key is not an
 * arrow; null (clear) on Escape.
 */
export function cursorAfterKey(
	sorted: readonly number[],
	current: number | null,
	key: string,
	start = sorted[0]
): number | null | undefined {
	if (key === 'Escape') return null;
	if ((key !== 'ArrowRight' && key !== 'ArrowLeft') || sorted.length === 0) return undefined;
	const from = current ?? start;
	let i = sorted.indexOf(from);
	if (i === -1) i = center(sorted, from);
	if (current === null) return sorted[i];
	const next = Math.min(sorted.length - 1, Math.max(0, i + (key === 'ArrowRight' ? 1 : -1)));
	return sorted[next];
}
