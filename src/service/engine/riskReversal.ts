/**
 * The 25-delta risk reversal of one expiry's contracts (the payloads' `delta_risk_reversal`):
 * shared by the category payloads (the set's first expiry) and the explicit-expiry payloads.
 */
import { r4 } from './rounding';

/**
 * 25-delta risk reversal of the contracts [start, end) (one expiry, by strike): IV(25d call) -
 * IV(25d put), each by linear interpolation of IV in delta on its side; 0 when a side has no
 * crossing.
 */
export function riskReversal25(
	isCall: ArrayLike<number>,
	delta: ArrayLike<number>,
	iv: ArrayLike<number>,
	start: number,
	end: number
): number {
	const ivAt = (call: boolean, target: number): number | undefined => {
		let prevD = NaN;
		let prevIv = NaN;
		for (let c = start; c < end; c++) {
			if ((isCall[c] === 1) !== call) continue;
			const d = delta[c];
			if (!Number.isNaN(prevD) && (prevD - target) * (d - target) <= 0 && prevD !== d) {
				return prevIv + ((target - prevD) / (d - prevD)) * (iv[c] - prevIv);
			}
			prevD = d;
			prevIv = iv[c];
		}
		return undefined;
	};
	const call = ivAt(true, 0.25);
	const put = ivAt(false, -0.25);
	return call === undefined || put === undefined ? 0 : r4(call - put);
}
