/**
 * The interaction the strike and research charts share, as a Svelte attachment on the chart's
 * <svg> (`{@attach cursor.attach}`), so each chart keeps only its scales and marks: a pointer
 * (hover, tap) selects the value under it, arrow keys step the selection and Escape clears it,
 * and on the strike charts a drag across the plot draws a brush and zooms to the dragged span,
 * as LayerChart's brush does. The chart reads `selected` for its readout and `brush` for the
 * rectangle it draws; it supplies how a position or a key maps to a value.
 */
import type { Attachment } from 'svelte/attachments';
import type { SVGAttributes } from 'svelte/elements';
import { on } from 'svelte/events';
import { cursorAfterKey, nearestValue } from './cursor';

export interface ChartCursorOptions {
	/** The pointer coordinate that picks: across (x, strikes left to right) or down (y, a ladder). */
	axis: 'x' | 'y';
	/** The value under a pointer at `pos` px from the SVG's left (x) or top (y) edge. */
	pick: (pos: number) => number | null | undefined;
	/** The selection after an arrow key, or undefined when the chart does not use the key. */
	step: (key: string, selected: number | null) => number | null | undefined;
	/** A mouse leaving the chart clears the selection (a tap's stays). */
	clearOnLeave?: boolean;
	/** Drag to zoom: absent on charts without a strike window. */
	brush?: {
		/** Only mouse drags zoom (the ladder: a vertical touch drag scrolls the page). */
		mouseOnly?: boolean;
		/** A drag at most this long (px) is a tap, not a zoom. */
		minSpan: () => number;
		/** The dragged span in px along the axis (from < to), on release. */
		end: (from: number, to: number) => void;
	};
}

/**
 * svelte/events `on` (kept in order with Svelte's delegated handlers), typed for SVG elements,
 * which its own overloads leave as plain Events.
 */
function listen<K extends keyof SVGElementEventMap>(
	svg: SVGSVGElement,
	type: K,
	handler: (e: SVGElementEventMap[K]) => void
): () => void {
	return on(svg, type, handler as (e: Event) => void);
}

/** Shorter than this (px), a drag draws no brush yet. */
const BRUSH_VISIBLE_PX = 2;

export class ChartCursor {
	/** The selected value (strike, DTE), or null. */
	selected: number | null = $state(null);
	private dragFrom: number | null = $state(null);
	private dragTo: number | null = $state(null);
	/** The brush being dragged, in px along the axis, or null. */
	readonly brush: { from: number; size: number } | null = $derived.by(() => {
		if (this.dragFrom === null || this.dragTo === null) return null;
		const size = Math.abs(this.dragTo - this.dragFrom);
		return size > BRUSH_VISIBLE_PX ? { from: Math.min(this.dragFrom, this.dragTo), size } : null;
	});

	constructor(private readonly options: ChartCursorOptions) {}

	private select(pos: number) {
		const value = this.options.pick(pos);
		if (value !== null && value !== undefined) this.selected = value;
	}

	private endDrag() {
		this.dragFrom = null;
		this.dragTo = null;
	}

	/** The attachment: `<svg {@attach cursor.attach}>`. */
	readonly attach: Attachment<SVGSVGElement> = (svg) => {
		const { axis, brush } = this.options;
		const local = (e: PointerEvent) => {
			const rect = svg.getBoundingClientRect();
			return axis === 'x' ? e.clientX - rect.left : e.clientY - rect.top;
		};
		const drags = (e: PointerEvent) => brush && (!brush.mouseOnly || e.pointerType === 'mouse');
		const offs = [
			listen(svg, 'pointermove', (e) => {
				const pos = local(e);
				if (this.dragFrom !== null && drags(e)) this.dragTo = pos;
				this.select(pos);
			}),
			listen(svg, 'pointerdown', (e) => {
				const pos = local(e);
				if (drags(e)) {
					this.dragFrom = pos;
					this.dragTo = pos;
				}
				this.select(pos);
			}),
			listen(svg, 'pointerup', () => {
				const { dragFrom: a, dragTo: b } = this;
				if (brush && a !== null && b !== null && Math.abs(b - a) > brush.minSpan()) {
					brush.end(Math.min(a, b), Math.max(a, b));
				}
				this.endDrag();
			}),
			listen(svg, 'pointerleave', (e) => {
				this.endDrag();
				if (this.options.clearOnLeave && e.pointerType === 'mouse') this.selected = null;
			}),
			listen(svg, 'keydown', (e) => {
				if (e.key === 'Escape') {
					this.selected = null;
					return;
				}
				const next = this.options.step(e.key, this.selected);
				if (next === undefined) return;
				this.selected = next;
				e.preventDefault();
			})
		];
		return () => {
			for (const off of offs) off();
		};
	};
}

/** What a value chart says about its slider to a screen reader. */
export interface SliderText {
	/** The chart's accessible name (what it shows, how to read it). */
	label: string;
	/** The value text while nothing is selected ("no strike selected"). */
	empty: string;
	/** The value text of a selected value: the readout of every mark at it. */
	describe: (value: number) => string;
	/** What kind of slider this is; default "chart". */
	roledescription?: string;
}

/**
 * The cursor of the research and chain charts: the value of `values` (sorted) nearest the
 * pointer across the x axis (`invert`: px to a value), arrows landing first on `start` (spot;
 * default the first value), a mouse leaving clears it; no zoom. `slider()` gives the <svg> the
 * focusable slider role those keys act on, in one place for every such chart.
 */
export class ValueCursor extends ChartCursor {
	constructor(
		private readonly values: () => readonly number[],
		invert: (px: number) => number,
		private readonly start?: () => number
	) {
		super({
			axis: 'x',
			pick: (px) => nearestValue(values(), invert(px)),
			step: (key, current) => cursorAfterKey(values(), current, key, start?.()),
			clearOnLeave: true
		});
	}

	/**
	 * The attributes of the chart's <svg> as a keyboard slider over its values, to spread on it
	 * (`<svg {@attach cursor.attach} {...cursor.slider(text)}>`): focusable, the range of the
	 * values, the selected one (or where the first arrow lands) and its readout.
	 */
	slider(text: SliderText): SVGAttributes<SVGSVGElement> {
		const values = this.values();
		const selected = this.selected;
		return {
			tabindex: 0,
			role: 'slider',
			'aria-roledescription': text.roledescription ?? 'chart',
			'aria-valuemin': values[0] ?? 0,
			'aria-valuemax': values[values.length - 1] ?? 0,
			'aria-valuenow': selected ?? this.start?.() ?? values[0] ?? 0,
			'aria-valuetext': selected === null ? text.empty : text.describe(selected),
			'aria-label': text.label
		};
	}
}
