/**
 * The histogram's level lines and max change markers, from the model and the x scale: which
 * levels fall in the drawn strike window, which lie past an edge (named there with their
 * price), and where the max change labels go without colliding.
 */
import { formatPrice, formatStrike } from '../../components/format/format';
import type { HistogramModel, MaxChangeMark } from './classicChain';
import { labelWidth, placeInRows, type RowLabel } from '../labels/labelPlacement';

export interface LevelLine {
	id: string;
	value: number;
	label: string;
	cls: string;
}

export interface OffLevel extends LevelLine {
	side: 'left' | 'right';
	row: number;
	text: string;
}

/** Spot, and with `showLevels` zero gamma and the majors the chain names. */
export function levelLines(model: HistogramModel, showLevels: boolean): LevelLine[] {
	const lines: LevelLine[] = [{ id: 'spot', value: model.spot, label: 'spot', cls: 'spot' }];
	if (!showLevels) return lines;
	if (model.zeroGamma !== null) {
		lines.push({ id: 'zero', value: model.zeroGamma, label: 'zero γ', cls: 'zero-gamma' });
	}
	// A major the chain does not name (0) is never drawn as a level at 0.
	if (model.majorPositiveStrike !== null) {
		lines.push({
			id: 'mpos',
			value: model.majorPositiveStrike,
			label: 'major +',
			cls: 'major-pos'
		});
	}
	if (model.majorNegativeStrike !== null) {
		lines.push({
			id: 'mneg',
			value: model.majorNegativeStrike,
			label: 'major −',
			cls: 'major-neg'
		});
	}
	return lines;
}

/** A level's price as read: the majors are strikes (7,590), spot and zero gamma prices (7,516.07). */
export function levelText(l: Pick<LevelLine, 'id' | 'value'>): string {
	return l.id === 'mpos' || l.id === 'mneg' ? formatStrike(l.value) : formatPrice(l.value);
}

/** Levels beyond the domain [lo, hi]: named at the edge they lie past, with their price. */
export function offLevels(all: readonly LevelLine[], lo: number, hi: number): OffLevel[] {
	const left = all.filter((l) => l.value < lo);
	const right = all.filter((l) => l.value > hi);
	return [
		...left.map((l, k) => ({
			...l,
			side: 'left' as const,
			row: k,
			text: `◀ ${l.label} ${levelText(l)}`
		})),
		...right.map((l, k) => ({
			...l,
			side: 'right' as const,
			row: k,
			text: `${l.label} ${levelText(l)} ▶`
		}))
	];
}

/**
 * Max change markers in the window [lo, hi] at x(strike). Labels go on up to two rows above the
 * plot (the shared label placement); a label that fits in neither is not drawn (the bar keeps its
 * max change outline, the mark its tooltip), so no glyph lands on another label.
 */
export function maxChangeMarks(
	marks: readonly MaxChangeMark[],
	lo: number,
	hi: number,
	x: (strike: number) => number,
	plot: { min: number; max: number }
): (MaxChangeMark & { x: number; row: number; label: boolean })[] {
	const shown = marks.filter((m) => m.strike >= lo && m.strike <= hi);
	const placed = placeInRows(
		shown.map((m) => ({
			id: String(m.strike),
			anchor: x(m.strike),
			size: labelWidth(`▼ ${m.windows.join('/')}`, 10)
		})),
		{ ...plot, maxRows: 2, align: 'middle' }
	);
	return shown.map((m, i) => ({
		...m,
		x: placed[i].start + placed[i].size / 2,
		row: Math.max(0, placed[i].row),
		label: placed[i].row >= 0
	}));
}

/** Where each in-window level's label goes: at its line, stacked in rows so none overlap. */
export function levelLabelPlaces(
	levels: readonly LevelLine[],
	x: (value: number) => number,
	plot: { min: number; max: number }
): RowLabel[] {
	return placeInRows(
		levels.map((l) => ({
			id: l.id,
			anchor: x(l.value) + 3,
			size: labelWidth(levelLabelText(l))
		})),
		plot
	);
}

export function levelLabelText(l: LevelLine): string {
	return `${l.label} ${levelText(l)}`;
}
