import { describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { easterSunday, holidayName, isHoliday, nyseHolidays } from './holidays';
import {
	SessionClock,
	etToUtc,
	isTradingDay,
	lastCompletedSession,
	marketPosition,
	nextTradingDay,
	previousTradingDay
} from './clock';
import { isRegularTradingHours, sessionBounds } from '../../lib/contract/newYorkTime';
import { isMonthlyExpiry, listExpiries } from './calendar';
import { createMarket, HistoryUnavailableError } from '../simulatedMarket';

describe('NYSE holidays', () => {
	it('lists the 2026 and 2027 full-day closures', () => {
		expect([...nyseHolidays(2026).keys()]).toEqual([
			'2026-01-01',
			'2026-01-19',
			'2026-02-16',
			'2026-04-03',
			'2026-05-25',
			'2026-06-19',
			'2026-07-03', // July 4th is a Saturday
			'2026-09-07',
			'2026-11-26',
			'2026-12-25'
		]);
		expect([...nyseHolidays(2027).keys()]).toEqual([
			'2027-01-01',
			'2027-01-18',
			'2027-02-15',
			'2027-03-26',
			'2027-05-31',
			'2027-06-18', // Juneteenth is a Saturday
			'2027-07-05', // July 4th is a Sunday
			'2027-09-06',
			'2027-11-25',
			'2027-12-24' // Christmas is a Saturday
		]);
	});

	it('does not observe a Saturday New Year on the Friday before', () => {
		expect(nyseHolidays(2022).has('2021-12-31')).toBe(false);
		expect(isHoliday('2021-12-31')).toBe(false);
		expect(holidayName('2028-01-01')).toBeUndefined();
	});

	it('computes Easter', () => {
		expect(easterSunday(2026)).toBe('2026-04-05');
		expect(easterSunday(2027)).toBe('2027-03-28');
		expect(easterSunday(2038)).toBe('2038-04-25');
		expect(holidayName('2027-04-02')).toBeUndefined();
		expect(holidayName('2027-03-26')).toBe('Good Friday');
	});

	it('has no session, no RTH and the previous close on a holiday', () => {
		expect(isTradingDay('2026-11-26')).toBe(false);
		expect(isTradingDay('2026-11-27')).toBe(true);
		expect(isRegularTradingHours(etToUtc('2026-11-26', 11, 0))).toBe(false);
		expect(isRegularTradingHours(etToUtc('2026-12-25', 10, 0))).toBe(false);
		expect(isRegularTradingHours(etToUtc('2027-06-18', 10, 0))).toBe(false);
		expect(marketPosition(etToUtc('2026-11-26', 11, 0))).toEqual({
			date: '2026-11-25',
			tick: 23_400,
			open: false
		});
		expect(lastCompletedSession(etToUtc('2026-11-27', 9, 0))).toBe('2026-11-25');
		expect(lastCompletedSession(etToUtc('2026-12-28', 9, 0))).toBe('2026-12-24');
		expect(previousTradingDay('2027-03-29')).toBe('2027-03-25');
		expect(nextTradingDay('2027-06-17')).toBe('2027-06-21');
	});

	it('replays the last real session in session mode on a holiday', () => {
		const wall = etToUtc('2026-11-26', 12, 0);
		const clock = new SessionClock({ mode: 'session', wall: () => wall });
		const { open, close } = sessionBounds('2026-11-25');
		expect(clock.nowMs()).toBeGreaterThanOrEqual(open * 1000);
		expect(clock.nowMs()).toBeLessThanOrEqual(close * 1000);
	});

	it('moves a holiday expiry to the previous session', () => {
		// 2027-03-26 is Good Friday; its Friday weekly settles Thursday 03-25.
		const spx = listExpiries('daily', '2027-03-22');
		expect(spx).not.toContain('2027-03-26');
		expect(spx).toContain('2027-03-25');
		expect(new Set(spx).size).toBe(spx.length);
		for (const e of spx) expect(isTradingDay(e), e).toBe(true);
		// Juneteenth 2026 is the third Friday: the June monthly moves to Thursday 06-18.
		const weekly = listExpiries('monthly', '2026-05-01');
		expect(weekly).toContain('2026-06-18');
		expect(weekly).not.toContain('2026-06-19');
		expect(isMonthlyExpiry('monthly', '2026-06-18')).toBe(true);
		expect(isMonthlyExpiry('monthly', '2026-06-19')).toBe(false);
		expect(listExpiries('daily', '2026-12-21')).not.toContain('2026-12-25');
		expect(listExpiries('daily', '2026-11-23')).not.toContain('2026-11-26');
	});

	it('refuses the history of a holiday with a 404 naming it', async () => {
		const dataDir = await mkdtemp(join(tmpdir(), 'gexdeck-holiday-'));
		try {
			const market = await createMarket({
				seed: 1,
				clock: 'real',
				start: new Date(etToUtc('2026-11-30', 12, 0)),
				dataDir,
				tickers: ['SPX']
			});
			const err = await market.history('SPX', 'classic', 'gex_full', '2026-11-26').catch((e) => e);
			expect(err).toBeInstanceOf(HistoryUnavailableError);
			expect(err.status).toBe(404);
			expect(err.message).toMatch(/Thanksgiving/);
			expect(market.lastCompletedSession()).toBe('2026-11-27');
			expect(market.isOpen(new Date(etToUtc('2026-11-26', 11, 0)))).toBe(false);
			market.stop();
		} finally {
			await rm(dataDir, { recursive: true, force: true });
		}
	});
});
