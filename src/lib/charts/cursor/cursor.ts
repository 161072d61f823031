/**
 * Which value (strike, DTE) a chart's cursor selects: the one nearest a pointer among the
 * sorted values that have marks, and the one an arrow key moves to. The research and chain
 * charts land on the start (spot) at the first arrow; the strike charts (Classic histogram,
 * State ladder) step from it. The pointer and keyboard wiring is chartCursor.svelte.ts.
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

/**
 * The strike after an arrow key on a strike chart: one step through `order` (the rows in screen
 * order) from the selection, or from `startIndex` (the row at spot; -1 for none) when nothing in
 * `order` is selected, clamped to the ends.
 */
export function stepStrike(
	order: readonly number[],
	selected: number | null,
	startIndex: number,
	delta: -1 | 1
): number | undefined {
	if (order.length === 0) return undefined;
	const at = selected === null ? -1 : order.indexOf(selected);
	const i = at === -1 ? startIndex : at;
	return order[Math.min(order.length - 1, Math.max(0, i + delta))];
}
