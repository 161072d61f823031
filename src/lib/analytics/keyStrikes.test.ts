import { describe, expect, it } from 'vitest';
import { largestAbsStrike, majorStrikes, maxChange, maxChanges } from './keyStrikes';

describe('majorStrikes', () => {
	it('picks the largest and smallest net value', () => {
		expect(majorStrikes([4900, 4950, 5000, 5050], [-3, -7, 2, 9], 5010)).toEqual({
			positive: 5050,
			negative: 4950
		});
	});
	it('breaks ties toward spot', () => {
		expect(majorStrikes([4900, 4950, 5050, 5100], [5, -2, 5, -2], 5040)).toEqual({
			positive: 5050,
			negative: 5100
		});
		expect(majorStrikes([4900, 5100], [1, 1], 4990).positive).toBe(4900);
	});
	it('is null for an empty ladder', () => {
		expect(majorStrikes([], [], 5000)).toEqual({ positive: null, negative: null });
		expect(largestAbsStrike([], [], 5000)).toBeNull();
	});
	it('largest absolute value', () => {
		expect(largestAbsStrike([10, 20, 30], [4, -9, 9], 29)).toBe(30);
	});
});

describe('maxChange', () => {
	it('reports the strike of largest absolute change with its sign', () => {
		const now = { strikes: [4900, 5000, 5100], values: [10, 50, -20] };
		const before = { strikes: [4900, 5000, 5100], values: [12, 45, 10] };
		expect(maxChange(now, before, 5000)).toEqual([5100, -30]);
	});
	it('treats strikes missing on one side as zero', () => {
		const now = { strikes: [5000], values: [5] };
		const before = { strikes: [4900, 5000], values: [-40, 5] };
		expect(maxChange(now, before, 5000)).toEqual([4900, 40]);
		expect(maxChange(before, now, 5000)).toEqual([4900, -40]);
	});
	it('null without history, one entry per lookback', () => {
		const now = { strikes: [5000, 5010], values: [1, 3] };
		expect(maxChanges(now, [now, null, { strikes: [5000], values: [0] }], 5002)).toEqual([
			[5000, 0],
			null,
			[5010, 3]
		]);
	});
});
