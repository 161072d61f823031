import { describe, expect, it } from 'vitest';
import { LIVE_LAG_S, freshness, lastSession, sessionDayLabel } from './freshness';
import { etToUtc } from './newYorkTime';

/** Unix ms of an ET wall time. */
const et = (day: string, h: number, m = 0, s = 0) => etToUtc(day, h, m, s);
/** Unix seconds of an ET wall time. */
const etS = (day: string, h: number, m = 0, s = 0) => et(day, h, m, s) / 1000;

const real = (dataTimestamp: number, now: number) =>
	freshness({ dataTimestamp, now, simulated: false });
const sim = (dataTimestamp: number, now: number) =>
	freshness({ dataTimestamp, now, simulated: true });

describe('freshness: what the data on screen is', () => {
	it('is live in the session when the data is today and within the documented lag', () => {
		const f = real(etS('2026-11-24', 10, 15, 0), et('2026-11-24', 10, 15, LIVE_LAG_S));
		expect(f).toMatchObject({ kind: 'live', live: true, text: 'Live', session: '2026-11-24' });
	});

	it('says how late the data is past the lag, in the session', () => {
		const now = et('2026-11-24', 10, 15, 40);
		expect(real(etS('2026-11-24', 10, 15, 0), now)).toMatchObject({
			kind: 'delayed',
			live: false,
			text: 'Delayed 40 s'
		});
		expect(real(etS('2026-11-24', 10, 0, 0), now).text).toBe('Delayed 15 min');
		expect(real(etS('2026-11-24', 9, 30, 0), et('2026-11-24', 11, 35)).text).toBe(
			'Delayed 2 h 5 min'
		);
		// One second past the lag is already delayed.
		expect(real(etS('2026-11-24', 10, 15, 0), et('2026-11-24', 10, 15, LIVE_LAG_S + 1)).live).toBe(
			false
		);
	});

	it('before the open the last session is labelled closed, even while the data moves', () => {
		// Friday after Thanksgiving, 08:00 ET: the last session was Wednesday Nov 25.
		const f = real(etS('2026-11-25', 15, 59, 59), et('2026-11-27', 8, 0));
		expect(f).toMatchObject({
			kind: 'closed',
			live: false,
			text: 'Market closed: last session (Wed Nov 25)'
		});
		expect(lastSession(et('2026-11-27', 8, 0))).toBe('2026-11-25');
	});

	it('the embedded market replaying a past session is a replay, never live', () => {
		const f = sim(etS('2026-11-25', 11, 46), et('2026-11-27', 8, 0));
		expect(f).toMatchObject({
			kind: 'replay',
			live: false,
			text: 'Replay of Wed Nov 25 (simulated market)',
			session: '2026-11-25'
		});
		// In market hours the simulated market runs on the wall clock: live like the real one.
		expect(sim(etS('2026-11-24', 10, 0, 0), et('2026-11-24', 10, 0, 1)).kind).toBe('live');
	});

	it('an early close ends live at 13:00 ET', () => {
		// Nov 27 2026 closes at 13:00.
		expect(real(etS('2026-11-27', 12, 59, 58), et('2026-11-27', 12, 59, 59)).live).toBe(true);
		expect(real(etS('2026-11-27', 13, 0, 0), et('2026-11-27', 13, 0, 0)).live).toBe(true);
		const after = real(etS('2026-11-27', 13, 0, 0), et('2026-11-27', 13, 0, 1));
		expect(after).toMatchObject({
			kind: 'closed',
			text: 'Market closed: last session (Fri Nov 27)'
		});
		// On a full day 13:00:01 is still live.
		expect(real(etS('2026-11-24', 13, 0, 0), et('2026-11-24', 13, 0, 1)).live).toBe(true);
	});

	it('after the close and over a weekend, the last session is Friday', () => {
		const friday = etS('2026-11-20', 16, 0, 0);
		expect(real(friday, et('2026-11-20', 16, 0, 1)).text).toBe(
			'Market closed: last session (Fri Nov 20)'
		);
		expect(real(friday, et('2026-11-22', 12, 0)).kind).toBe('closed');
		expect(real(friday, et('2026-11-23', 9, 29, 59)).kind).toBe('closed');
		// Monday's open: Friday's data is no longer the last session's, and not live.
		expect(real(friday, et('2026-11-23', 9, 30, 5))).toMatchObject({
			kind: 'old',
			live: false,
			text: 'Not live: data of Fri Nov 20'
		});
	});

	it('data older than the last session says its day', () => {
		expect(real(etS('2026-11-18', 12, 0), et('2026-11-22', 12, 0))).toMatchObject({
			kind: 'old',
			text: 'Market closed: data of Wed Nov 18'
		});
	});

	it('a holiday is closed: the last session is the one before it', () => {
		// Thanksgiving Thursday Nov 26 2026.
		expect(lastSession(et('2026-11-26', 11, 0))).toBe('2026-11-25');
		expect(real(etS('2026-11-25', 16, 0), et('2026-11-26', 11, 0)).kind).toBe('closed');
	});

	it('labels days as a trader reads them', () => {
		expect(sessionDayLabel('2026-11-25')).toBe('Wed Nov 25');
		expect(sessionDayLabel('2027-01-04')).toBe('Mon Jan 4');
	});
});
