import { describe, expect, it } from 'vitest';
import { levelText, offLevels } from './histogramMarks';

describe('level labels', () => {
	it('write the majors as strikes and spot and zero gamma as prices', () => {
		expect(levelText({ id: 'mpos', value: 7590 })).toBe('7,590');
		expect(levelText({ id: 'mneg', value: 7582.5 })).toBe('7,582.5');
		expect(levelText({ id: 'spot', value: 7516.07 })).toBe('7,516.07');
		expect(levelText({ id: 'zero', value: 7547 })).toBe('7,547.00');
	});

	it('name a level past the window with the same words', () => {
		const off = offLevels(
			[{ id: 'mpos', value: 7700, label: 'major +', cls: 'major-pos' }],
			7400,
			7600
		);
		expect(off.map((o) => o.text)).toEqual(['major + 7,700 ▶']);
	});
});
