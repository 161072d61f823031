import { describe, expect, it } from 'vitest';
import { PATH_GAP_S, pathData, type PathPoint } from './levelsPoints';

const point = (t: number, spot: number): PathPoint => ({
	t,
	spot,
	zeroGamma: 0,
	majorPos: spot + 10,
	majorNeg: spot - 10
});
const x = (t: number) => t / 10;
const y = (v: number) => 1000 - v;

describe('pathData', () => {
	it('joins points a step or two apart and starts a new subpath after an outage', () => {
		// Every 10 s, a missed step at 30 s, then nothing for five minutes.
		const points = [0, 10, 20, 40, 50, 350, 360].map((t) => point(t, 900 + t / 10));
		expect(pathData(points, 'spot', x, y)).toBe('M0,100L1,99L2,98L4,96L5,95M35,65L36,64');
	});

	it('breaks only past PATH_GAP_S: a hole of exactly that is joined', () => {
		const points = [point(0, 900), point(PATH_GAP_S, 900), point(2 * PATH_GAP_S + 1, 900)];
		expect(pathData(points, 'spot', x, y).match(/M/g)).toHaveLength(2);
	});

	it('skips points without a price (zero gamma not named) and draws nothing of none', () => {
		const points = [0, 10, 20].map((t) => point(t, 900));
		expect(pathData(points, 'zeroGamma', x, y)).toBe('');
		points[1] = { ...points[1], zeroGamma: 905 };
		expect(pathData(points, 'zeroGamma', x, y)).toBe('M1,95');
	});
});
