/**
 * The history route's 90-day window on the ET calendar: day 90 is served, day 91 refused, today
 * served and tomorrow refused, also in the evening ET when the UTC date is already tomorrow.
 */
import { describe, expect, it } from 'vitest';
import type { ServiceContext } from './context';
import { checkHistoryWindow, HISTORY_WINDOW_DAYS } from './history';
import { HttpError } from './respond';

/** The only part of the context the check reads: the market's clock. */
const at = (iso: string) => ({ market: { now: () => new Date(iso) } }) as unknown as ServiceContext;

function refusal(ctx: ServiceContext, date: string): HttpError | undefined {
	try {
		checkHistoryWindow(ctx, date);
		return undefined;
	} catch (err) {
		expect(err).toBeInstanceOf(HttpError);
		return err as HttpError;
	}
}

describe('checkHistoryWindow', () => {
	it('serves day 90 and refuses day 91 (400, naming the oldest date)', () => {
		expect(HISTORY_WINDOW_DAYS).toBe(90);
		const ctx = at('2026-11-20T15:00:00Z'); // 10:00 ET, Friday
		expect(refusal(ctx, '2026-08-22')).toBeUndefined(); // 90 days before
		expect(refusal(ctx, '2026-08-23')).toBeUndefined();
		const old = refusal(ctx, '2026-08-21'); // 91 days before
		expect(old?.status).toBe(400);
		expect(old?.message).toBe(
			'Date 2026-08-21 is outside the 90-day history window (oldest: 2026-08-22).'
		);
		expect(refusal(ctx, '2025-11-20')?.status).toBe(400);
	});

	it('serves today and refuses tomorrow, by the ET date', () => {
		const ctx = at('2026-11-20T15:00:00Z');
		expect(refusal(ctx, '2026-11-20')).toBeUndefined();
		const tomorrow = refusal(ctx, '2026-11-21');
		expect(tomorrow?.status).toBe(400);
		expect(tomorrow?.message).toBe('Date 2026-11-21 is in the future.');
		// 22:30 ET on the 20th is already the 21st in UTC: still today's window in ET.
		const evening = at('2026-11-21T03:30:00Z');
		expect(refusal(evening, '2026-11-20')).toBeUndefined();
		expect(refusal(evening, '2026-11-21')?.status).toBe(400);
		expect(refusal(evening, '2026-08-22')).toBeUndefined();
		expect(refusal(evening, '2026-08-21')?.status).toBe(400);
		// Just after midnight ET the window moves by one day.
		const midnight = at('2026-11-21T05:00:01Z');
		expect(refusal(midnight, '2026-11-21')).toBeUndefined();
		expect(refusal(midnight, '2026-08-22')?.status).toBe(400);
	});
});
