import { describe, expect, it } from 'vitest';
import { readoutText } from './readoutText';

describe('readoutText', () => {
	it('names the second value for its metric and shows the volume priors by volume', () => {
		const t = readoutText(
			{ strike: 7580, other: -423, priors: [-4730, -4640] },
			7550,
			'by volume',
			5
		);
		expect(t.other).toBe('by OI: −$423M');
		expect(t.priors).toBe('earlier: −$4.73B · −$4.64B');
		expect(t.fromSpot).toBe('+30 pts from spot');
	});

	it('by OI says there is no intraday history instead of drawing the volume priors', () => {
		const t = readoutText({ strike: 7520, other: 12, priors: [] }, 7550, 'by OI', 0);
		expect(t.other).toBe('by volume: $12M');
		expect(t.priors).toBe('OI is published once a day: no intraday history');
		expect(t.fromSpot).toBe('−30 pts from spot');
	});
});
