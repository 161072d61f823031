/**
 * Where chart labels go so that no two overlap (issue 25 item 7): the one placement used by
 * every chart that names levels (Classic and State's histogram, the greek ladder, the price
 * chart). Pure: sizes are estimated by the caller (labelWidth), positions are pixels.
 *
 * - placeInRows: labels along an axis (x) at their anchors, stacked into rows; a label takes the
 *   first row where it fits. Past `maxRows` it is not placed (the caller keeps the mark, drops
 *   the text). Used for labels above vertical lines (levels, max change markers).
 * - spreadOnAxis: labels on one line (y) pushed apart just enough, kept inside [min, max]. Used
 *   for labels beside horizontal lines (ladder levels, the price chart's level names).
 */

export interface LabelRequest {
	id: string;
	/** Pixel position of the thing labelled. */
	anchor: number;
	/** Extent of the label along the axis, in pixels. */
	size: number;
}

export interface RowLabel extends LabelRequest {
	/** Start of the label along the axis. */
	start: number;
	/** Row, 0 nearest the plot; -1 when it did not fit in maxRows. */
	row: number;
}

export interface SpreadLabel extends LabelRequest {
	/** Centre of the label along the axis. */
	centre: number;
}

/** A label's width in pixels at `fontPx`, from its length (system-ui digits are ~0.6 em). */
export function labelWidth(text: string, fontPx = 11): number {
	return Math.ceil(text.length * fontPx * 0.62) + 4;
}

/** Indices in anchor order, equal anchors in the callers' order (stable). */
function byAnchor(items: readonly LabelRequest[]): number[] {
	return items.map((_, i) => i).sort((a, b) => items[a].anchor - items[b].anchor || a - b);
}

const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(v, Math.max(lo, hi)));

/**
 * Labels start at their anchor (or end there when `align` is 'end'; centred with 'middle'),
 * clamped into [min, max]; each takes the lowest row whose previous label ends `gap` before it.
 * Returned in the callers' order.
 */
export function placeInRows(
	items: readonly LabelRequest[],
	opts: { min: number; max: number; gap?: number; maxRows?: number; align?: Align }
): RowLabel[] {
	const gap = opts.gap ?? 3;
	const maxRows = opts.maxRows ?? Infinity;
	const rowEnds: number[] = [];
	const out: RowLabel[] = new Array(items.length);
	for (const i of byAnchor(items)) {
		const l = items[i];
		const start = clamp(alignedStart(l, opts.align ?? 'start'), opts.min, opts.max - l.size);
		let row = rowEnds.findIndex((end) => end + gap <= start);
		if (row < 0 && rowEnds.length < maxRows) row = rowEnds.push(-Infinity) - 1;
		if (row >= 0) rowEnds[row] = start + l.size;
		out[i] = { ...l, start, row };
	}
	return out;
}

export type Align = 'start' | 'middle' | 'end';

function alignedStart(l: LabelRequest, align: Align): number {
	return align === 'start' ? l.anchor : align === 'end' ? l.anchor - l.size : l.anchor - l.size / 2;
}

/**
 * Labels centred on their anchors; labels that would overlap form a block (`gap` apart inside)
 * centred on its members' anchors, blocks merging until none overlap, each block kept inside
 * [min, max] when it fits. The order along the axis is the anchors' order.
 */
export function spreadOnAxis(
	items: readonly LabelRequest[],
	opts: { min: number; max: number; gap?: number }
): SpreadLabel[] {
	const gap = opts.gap ?? 2;
	const order = byAnchor(items);
	interface Block {
		members: number[];
		/** Sum over members of the block start that would centre it on its anchor. */
		want: number;
		size: number;
		start: number;
	}
	const place = (b: Block) => {
		b.start = clamp(b.want / b.members.length, opts.min, opts.max - b.size);
	};
	const blocks: Block[] = [];
	for (const i of order) {
		const l = items[i];
		const b: Block = { members: [i], want: l.anchor - l.size / 2, size: l.size, start: 0 };
		place(b);
		blocks.push(b);
		// Merge backwards while the newest block overlaps the one before it.
		while (blocks.length > 1) {
			const [p, q] = [blocks[blocks.length - 2], blocks[blocks.length - 1]];
			if (p.start + p.size + gap <= q.start) break;
			const shift = p.size + gap;
			p.want += q.want - q.members.length * shift;
			p.members.push(...q.members);
			p.size += gap + q.size;
			place(p);
			blocks.pop();
		}
	}
	const out: SpreadLabel[] = new Array(items.length);
	for (const b of blocks) {
		let at = b.start;
		for (const i of b.members) {
			out[i] = { ...items[i], centre: at + items[i].size / 2 };
			at += items[i].size + gap;
		}
	}
	return out;
}
