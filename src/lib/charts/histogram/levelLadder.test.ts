import { describe, expect, it } from 'vitest';
import { levelLadder } from './levelLadder';
import type { LevelRow } from './phoneLevels';

const rows: LevelRow[] = [
	{ id: 'spot', label: 'Spot', value: 7550, tone: 'spot' },
	{ id: 'zero', label: 'Zero gamma', value: 7568, tone: 'zero' },
	{ id: 'mpos_vol', label: 'Major + (vol)', value: 7600, tone: 'pos' },
	{ id: 'mpos_oi', label: 'Major + (OI)', value: 7580, tone: 'pos' },
	{ id: 'mneg_vol', label: 'Major − (vol)', value: 7520, tone: 'neg' },
	{ id: 'mneg_oi', label: 'Major − (OI)', value: 7540, tone: 'neg' },
	{ id: 'maxchange', label: 'Max change (5m)', value: 7500, tone: 'change' }
];

describe('levelLadder', () => {
	it('sorts by price from the top with spot in its place and marks the nearest both sides', () => {
		const { rows: ladder, unpriced } = levelLadder(rows, 7550);
		expect(ladder.map((r) => r.value)).toEqual([7600, 7580, 7568, 7550, 7540, 7520, 7500]);
		expect(ladder[3].id).toBe('spot');
		expect(ladder.filter((r) => r.nearest).map((r) => [r.id, r.nearest])).toEqual([
			['zero', 'above'],
			['mneg_oi', 'below']
		]);
		expect(unpriced).toEqual([]);
	});

	it('gives each level its distance from spot in points and percent', () => {
		const { rows: ladder } = levelLadder(rows, 7550);
		const top = ladder[0];
		expect(top.points).toBe(50);
		expect(top.percent).toBeCloseTo((50 / 7550) * 100, 10);
		expect(ladder.find((r) => r.id === 'maxchange')?.points).toBe(-50);
	});

	it('lists levels without a price apart, and marks every level at the nearest price', () => {
		const withTies: LevelRow[] = [
			...rows.filter((r) => r.id !== 'zero'),
			{ id: 'zero', label: 'Zero gamma', value: null, tone: 'zero' },
			{ id: 'tie', label: 'Major + (OI)', value: 7580, tone: 'pos' }
		];
		const { rows: ladder, unpriced } = levelLadder(withTies, 7550);
		expect(unpriced.map((r) => r.id)).toEqual(['zero']);
		expect(ladder.filter((r) => r.nearest === 'above').map((r) => r.id)).toEqual([
			'mpos_oi',
			'tie'
		]);
	});

	it('puts spot above a level at the same price', () => {
		const { rows: ladder } = levelLadder(
			[rows[0], { id: 'mpos_vol', label: 'Major + (vol)', value: 7550, tone: 'pos' }],
			7550
		);
		expect(ladder.map((r) => r.id)).toEqual(['spot', 'mpos_vol']);
		expect(ladder[1].nearest).toBeUndefined();
	});
});
