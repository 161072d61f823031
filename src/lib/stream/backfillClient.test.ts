import { describe, expect, it } from 'vitest';
import { backfillUrl, sessionQuery } from './backfillClient';

describe('sessionQuery', () => {
	it("asks today's recording so far without a day", () => {
		expect(sessionQuery(null)).toEqual({});
		expect(sessionQuery(null, 5)).toEqual({ step: 5 });
		expect(backfillUrl('SPX', 'classic_gex_full', sessionQuery(null, 5))).toBe(
			'/history/SPX/classic_gex_full?step=5'
		);
	});

	it("asks a past day from the recording, else the service's history", () => {
		expect(sessionQuery('2026-11-20')).toEqual({ day: '2026-11-20', fromService: true });
		expect(backfillUrl('SPX', 'classic_gex_zero', sessionQuery('2026-11-20', 5))).toBe(
			'/history/SPX/classic_gex_zero?day=2026-11-20&step=5&source=service'
		);
	});
});
