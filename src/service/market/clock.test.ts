import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	SessionClock,
	SESSION_SECONDS,
	etParts,
	etToUtc,
	lastCompletedSession,
	marketPosition,
	previousTradingDay
} from './clock';
import { isRegularTradingHours, sessionBounds } from '../../lib/contract/newYorkTime';

const utc = (iso: string) => Date.parse(iso);

describe('New York time', () => {
	it('converts across both DST switches of 2026', () => {
		// EST (UTC-5) before 2026-03-08, EDT (UTC-4) until 2026-11-01.
		expect(new Date(etToUtc('2026-03-06', 9, 30)).toISOString()).toBe('2026-03-06T14:30:00.000Z');
		expect(new Date(etToUtc('2026-03-09', 9, 30)).toISOString()).toBe('2026-03-09T13:30:00.000Z');
		expect(new Date(etToUtc('2026-10-30', 16, 0)).toISOString()).toBe('2026-10-30T20:00:00.000Z');
		expect(new Date(etToUtc('2026-11-02', 16, 0)).toISOString()).toBe('2026-11-02T21:00:00.000Z');
		// The Sunday of the switch itself: 03:30 EDT exists, midnight is still EST.
		expect(new Date(etToUtc('2026-03-08', 3, 30)).toISOString()).toBe('2026-03-08T07:30:00.000Z');
		expect(new Date(etToUtc('2026-03-08', 0, 0)).toISOString()).toBe('2026-03-08T05:00:00.000Z');
	});

	it('reads wall-clock fields back', () => {
		const p = etParts(utc('2026-07-01T03:59:59Z'));
		expect(p).toMatchObject({ date: '2026-06-30', hour: 23, minute: 59, second: 59, weekday: 2 });
	});

	it('round-trips every instant outside the repeated fall-back hour', () => {
		fc.assert(
			fc.property(fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2031, 0, 1) }), (raw) => {
				const ms = raw - (raw % 1000);
				const p = etParts(ms);
				const back = etToUtc(p.date, p.hour, p.minute, p.second);
				// 01:00-01:59 on the first Sunday of November happens twice; either instant is right.
				if (p.hour === 1 && p.weekday === 0 && p.month === 11)
					return Math.abs(back - ms) % 3_600_000 === 0;
				return back === ms;
			}),
			{ numRuns: 2000 }
		);
	});

	it('refuses malformed dates', () => {
		expect(() => etToUtc('2026-02-30')).toThrow(RangeError);
		expect(() => etToUtc('20260105')).toThrow(RangeError);
	});
});

describe('regular trading hours', () => {
	it('opens at 09:30:00 and includes the 16:00:00 close tick, DST-correct', () => {
		expect(isRegularTradingHours(utc('2026-03-06T14:29:59Z'))).toBe(false);
		expect(isRegularTradingHours(utc('2026-03-06T14:30:00Z'))).toBe(true);
		expect(isRegularTradingHours(utc('2026-03-09T13:30:00Z'))).toBe(true); // 09:30 EDT
		expect(isRegularTradingHours(utc('2026-03-09T14:29:59Z'))).toBe(true);
		expect(isRegularTradingHours(utc('2026-11-02T21:00:00Z'))).toBe(true); // 16:00:00 EST
		expect(isRegularTradingHours(utc('2026-11-02T21:00:01Z'))).toBe(false);
	});

	it('is closed on weekends', () => {
		expect(isRegularTradingHours(utc('2026-11-21T16:00:00Z'))).toBe(false); // Saturday 11:00 ET
		expect(isRegularTradingHours(utc('2026-11-22T16:00:00Z'))).toBe(false);
	});

	it('serves the last session close outside RTH', () => {
		expect(marketPosition(utc('2026-11-23T13:00:00Z'))).toEqual({
			date: '2026-11-20',
			tick: SESSION_SECONDS,
			open: false
		}); // Monday 08:00 ET -> Friday's close
		expect(marketPosition(utc('2026-11-20T22:00:00Z'))).toEqual({
			date: '2026-11-20',
			tick: SESSION_SECONDS,
			open: false
		});
		expect(marketPosition(utc('2026-11-20T14:30:05Z'))).toEqual({
			date: '2026-11-20',
			tick: 5,
			open: true
		});
		expect(lastCompletedSession(utc('2026-11-20T20:59:59Z'))).toBe('2026-11-19');
		expect(lastCompletedSession(utc('2026-11-20T21:00:00Z'))).toBe('2026-11-20');
		expect(lastCompletedSession(utc('2026-11-22T12:00:00Z'))).toBe('2026-11-20');
		expect(previousTradingDay('2026-11-23')).toBe('2026-11-20');
	});
});

describe('SessionClock', () => {
	it('runs linearly from start at speed', () => {
		let wall = 1_000_000;
		const clock = new SessionClock({
			mode: 'session',
			start: new Date('2026-11-20T14:30:00Z'),
			speed: 60,
			wall: () => wall
		});
		expect(clock.now().toISOString()).toBe('2026-11-20T14:30:00.000Z');
		wall += 10_000;
		expect(clock.now().toISOString()).toBe('2026-11-20T14:40:00.000Z');
		expect(clock.wallDelayUntil(clock.nowMs() + 60_000)).toBeCloseTo(1000);
	});

	it('follows wall time in real mode', () => {
		const wall = utc('2026-11-22T08:00:00Z');
		expect(new SessionClock({ mode: 'real', wall: () => wall }).nowMs()).toBe(wall);
	});

	it('maps a night or weekend onto a replay of the last session in session mode', () => {
		let wall = utc('2026-11-22T08:00:00Z'); // Sunday 03:00 ET
		const clock = new SessionClock({ mode: 'session', wall: () => wall });
		const { open, close } = sessionBounds('2026-11-20');
		const first = clock.nowMs();
		expect(first).toBeGreaterThanOrEqual(open * 1000);
		expect(first).toBeLessThan(close * 1000);
		expect(isRegularTradingHours(first)).toBe(true);
		wall += 1000;
		expect(clock.nowMs() - first).toBe(1000);
	});

	it('is wall time during a live session in session mode', () => {
		const wall = utc('2026-11-20T15:00:00Z');
		expect(new SessionClock({ mode: 'session', wall: () => wall }).nowMs()).toBe(wall);
	});

	it('rejects a non-positive speed', () => {
		expect(() => new SessionClock({ mode: 'session', speed: 0 })).toThrow(RangeError);
	});
});
