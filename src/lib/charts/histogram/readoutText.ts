/**
 * The histogram readout's words for a selected strike: its value by the other metric, named for
 * what it is (it was "other"), the earlier values (by volume only: the service's lookback
 * priors are the volume history and open interest changes once a day) and its distance from spot.
 */
import { formatGex, formatPoints } from '../../components/format/format';

export interface ReadoutInput {
	strike: number;
	other: number;
	priors: readonly number[];
}

export function readoutText(
	selected: ReadoutInput,
	spot: number,
	metricLabel: string,
	priorCount: number
): { other: string; priors: string; fromSpot: string } {
	const otherLabel = /OI/.test(metricLabel) ? 'by volume' : 'by OI';
	return {
		other: `${otherLabel}: ${formatGex(selected.other)}`,
		priors:
			priorCount > 0
				? `earlier: ${selected.priors.map((p) => formatGex(p)).join(' · ')}`
				: 'OI is published once a day: no intraday history',
		fromSpot: `${formatPoints(selected.strike - spot)} from spot`
	};
}
