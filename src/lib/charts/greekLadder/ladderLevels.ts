/**
 * The greek ladder's horizontal level lines: spot and the profile's majors inside the strike
 * window, majors on one strike sharing one line and label, each with its CSS class.
 */
import { formatPrice } from '../../components/format/format';
import type { StrikeWindow } from '../../state/viewState';
import type { LadderLevelId, LadderModel } from './greekLadder';

export interface LadderLevelLine {
	strike: number;
	ids: (LadderLevelId | 'spot')[];
	label: string;
}

export const LEVEL_CLASS: Record<LadderLevelId | 'spot', string> = {
	spot: 'spot',
	longGamma: 'long-gamma',
	shortGamma: 'short-gamma',
	majorCall: 'major-call',
	majorPut: 'major-put'
};

/** Spot and (with `showLevels`) the majors in the window. */
export function ladderLevelLines(
	model: LadderModel,
	window: StrikeWindow,
	showLevels: boolean
): LadderLevelLine[] {
	const lines: LadderLevelLine[] = [];
	const add = (strike: number, id: LadderLevelId | 'spot', label: string) => {
		if (strike < window.lo || strike > window.hi) return;
		const l = lines.find((x) => x.strike === strike);
		if (l) {
			l.ids.push(id);
			l.label += ` · ${label}`;
		} else lines.push({ strike, ids: [id], label });
	};
	add(model.spot, 'spot', `spot ${formatPrice(model.spot)}`);
	if (showLevels) for (const l of model.levels) add(l.strike, l.id, l.label);
	return lines;
}
