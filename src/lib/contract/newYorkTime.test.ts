import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
	ET_ZONE,
	RULE_YEARS,
	etParts,
	etDay,
	etWindowIds,
	formatEtClock,
	formatEtDateTime,
	formatEtMonthDay,
	formatTimeOfDay,
	isRegularTradingHours,
	sessionBounds
} from './newYorkTime';

describe('market hours (America/New_York, DST-correct)', () => {
	it('is open 09:30:00-16:00:00 ET on weekdays in both EST and EDT, the closing second included', () => {
		// Winter (EST, UTC-5)
		expect(isRegularTradingHours(new Date('2026-01-14T14:29:59Z'))).toBe(false);
		expect(isRegularTradingHours(new Date('2026-01-14T14:30:00Z'))).toBe(true);
		expect(isRegularTradingHours(new Date('2026-01-14T20:59:59Z'))).toBe(true); // 15:59:59
		expect(isRegularTradingHours(new Date('2026-01-14T21:00:00Z'))).toBe(true); // 16:00:00
		expect(isRegularTradingHours(new Date('2026-01-14T21:00:00.999Z'))).toBe(true);
		expect(isRegularTradingHours(new Date('2026-01-14T21:00:01Z'))).toBe(false); // 16:00:01
		// Summer (EDT, UTC-4)
		expect(isRegularTradingHours(new Date('2026-07-14T13:30:00Z'))).toBe(true);
		expect(isRegularTradingHours(new Date('2026-07-14T19:59:59Z'))).toBe(true);
		expect(isRegularTradingHours(new Date('2026-07-14T20:00:00Z'))).toBe(true);
		expect(isRegularTradingHours(new Date('2026-07-14T20:00:01Z'))).toBe(false);
	});

	it('is closed on weekends', () => {
		expect(isRegularTradingHours(new Date('2026-11-21T15:00:00Z'))).toBe(false); // Saturday
		expect(isRegularTradingHours(new Date('2026-11-22T15:00:00Z'))).toBe(false); // Sunday
	});

	it('is closed on NYSE holidays and closes at 13:00 ET on early-close days', () => {
		expect(isRegularTradingHours(new Date('2026-11-26T16:00:00Z'))).toBe(false); // Thanksgiving
		expect(isRegularTradingHours(new Date('2026-07-03T15:00:00Z'))).toBe(false); // July 4th observed
		// Day after Thanksgiving (EST): an early close, 13:00:00 the closing second.
		expect(isRegularTradingHours(new Date('2026-11-27T17:59:59Z'))).toBe(true); // 12:59:59
		expect(isRegularTradingHours(new Date('2026-11-27T18:00:00Z'))).toBe(true); // 13:00:00
		expect(isRegularTradingHours(new Date('2026-11-27T18:00:01Z'))).toBe(false); // 13:00:01
		expect(isRegularTradingHours(new Date('2026-11-27T20:59:59Z'))).toBe(false); // 15:59:59
		expect(isRegularTradingHours(new Date('2026-11-27T21:00:00Z'))).toBe(false); // 16:00:00
		expect(isRegularTradingHours(new Date('2026-12-24T18:30:00Z'))).toBe(false); // Christmas Eve
		// July 2nd 2026 is a full day (the holiday is Friday July 3rd); July 3rd 2025 closed early.
		expect(isRegularTradingHours(new Date('2026-07-02T19:00:00Z'))).toBe(true);
		expect(isRegularTradingHours(new Date('2025-07-03T17:00:01Z'))).toBe(false);
		expect(isRegularTradingHours(new Date('2025-07-03T16:59:00Z'))).toBe(true);
	});

	it('names quota windows by the ET calendar', () => {
		expect(etWindowIds(new Date('2026-03-01T04:59:59Z'))).toEqual({
			daily: '2026-02-28',
			monthly: '2026-02'
		});
		expect(etWindowIds(new Date('2026-03-01T05:00:00Z'))).toEqual({
			daily: '2026-03-01',
			monthly: '2026-03'
		});
	});
});

const iso = (unixS: number) => new Date(unixS * 1000).toISOString();

describe('sessionBounds', () => {
	it('puts 09:30 and 16:00 on the wall clock of a DST-switch day, not midnight + 9.5 h', () => {
		// 2026-03-08: 02:00 EST jumps to 03:00 EDT, so the session hours are EDT (UTC-4).
		const spring = sessionBounds('2026-03-08');
		expect(iso(spring.open)).toBe('2026-03-08T13:30:00.000Z');
		expect(iso(spring.close)).toBe('2026-03-08T20:00:00.000Z');
		// 2026-11-01: 02:00 EDT falls back to 01:00 EST, so the session hours are EST (UTC-5).
		const fall = sessionBounds('2026-11-01');
		expect(iso(fall.open)).toBe('2026-11-01T14:30:00.000Z');
		expect(iso(fall.close)).toBe('2026-11-01T21:00:00.000Z');
		// Time-of-day labels (t - midnight) read the wall clock through the regular hours.
		for (const b of [spring, fall]) {
			expect(formatTimeOfDay(b.open - b.midnight)).toBe('09:30');
			expect(formatTimeOfDay(b.close - b.midnight)).toBe('16:00');
		}
	});

	it('keeps midnight, open and close on the same day as the days either side of a switch', () => {
		expect(iso(sessionBounds('2026-03-06').open)).toBe('2026-03-06T14:30:00.000Z'); // EST
		expect(iso(sessionBounds('2026-03-09').open)).toBe('2026-03-09T13:30:00.000Z'); // EDT
		expect(iso(sessionBounds('2026-10-30').open)).toBe('2026-10-30T13:30:00.000Z'); // EDT
		expect(iso(sessionBounds('2026-11-02').open)).toBe('2026-11-02T14:30:00.000Z'); // EST
		expect(iso(sessionBounds('2026-11-02').midnight)).toBe('2026-11-02T05:00:00.000Z');
	});

	it('on any calendar day, open and close are the instants New York reads 09:30 and the close', () => {
		const day = fc
			.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 11, 31) })
			.map((ms) => new Date(ms).toISOString().slice(0, 10));
		fc.assert(
			fc.property(day, (d) => {
				const { midnight, open, close } = sessionBounds(d);
				const o = etParts(open * 1000);
				const c = etParts(close * 1000);
				expect([o.date, o.hour, o.minute, o.second]).toEqual([d, 9, 30, 0]);
				expect([c.date, c.minute, c.second]).toEqual([d, 0, 0]);
				expect([13, 16]).toContain(c.hour);
				expect(formatEtClock(open)).toBe(formatTimeOfDay(open - midnight, true));
				expect(formatEtClock(close)).toBe(formatTimeOfDay(close - midnight, true));
			}),
			{ numRuns: 300 }
		);
	});

	// The offset is computed by the US rule for 2007-2099 (no Intl on a page's critical path);
	// the platform's tz database is the reference it must equal, to the second, on every field.
	describe('the DST rule equals the tz database (Intl)', () => {
		const reference = new Intl.DateTimeFormat('en-US', {
			timeZone: ET_ZONE,
			hourCycle: 'h23',
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
			hour: '2-digit',
			minute: '2-digit',
			second: '2-digit',
			weekday: 'short'
		});
		const intl = (ms: number) => {
			const f: Record<string, string> = {};
			for (const p of reference.formatToParts(ms)) f[p.type] = p.value;
			const wd = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(f.weekday);
			return {
				year: Number(f.year),
				month: Number(f.month),
				day: Number(f.day),
				hour: Number(f.hour),
				minute: Number(f.minute),
				second: Number(f.second),
				weekday: wd,
				date: `${f.year}-${f.month}-${f.day}`
			};
		};
		const labels = (ms: number) => {
			const at = (o: Intl.DateTimeFormatOptions) =>
				new Intl.DateTimeFormat('en-US', { timeZone: ET_ZONE, ...o }).format(ms);
			const clock = {
				hour: '2-digit',
				minute: '2-digit',
				second: '2-digit',
				hourCycle: 'h23'
			} as const;
			return [
				at(clock),
				at({ month: 'short', day: 'numeric' }),
				at({ month: 'short', day: 'numeric', ...clock })
			];
		};
		const covered = fc.integer({
			min: Date.UTC(RULE_YEARS.first - 1, 11, 31),
			max: Date.UTC(RULE_YEARS.last + 1, 0, 2)
		});

		it('at random instants of every year the rule covers, and just past either end', () => {
			fc.assert(
				fc.property(covered, (ms) => {
					expect(etParts(ms)).toEqual(intl(ms));
				}),
				{ numRuns: 20_000 }
			);
		});

		it('within an hour of every switch, second by second around it', () => {
			for (let year = RULE_YEARS.first; year <= RULE_YEARS.last; year++) {
				for (const month of [2, 10]) {
					// The switch instants: 07:00 UTC in March, 06:00 UTC in November, on a Sunday.
					for (let day = 1; day <= 14; day++) {
						const hour = month === 2 ? 7 : 6;
						const at = Date.UTC(year, month, day, hour);
						if (new Date(at).getUTCDay() !== 0) continue;
						for (const d of [-3_600_000, -1000, -1, 0, 1, 999, 1000, 3_600_000])
							expect(etParts(at + d)).toEqual(intl(at + d));
					}
				}
			}
		});

		it("formats the clock and the day as Intl's en-US does", () => {
			fc.assert(
				fc.property(covered, fc.integer({ min: 0, max: 999 }), (ms, frac) => {
					const s = (ms + frac) / 1000;
					expect([formatEtClock(s), formatEtMonthDay(s), formatEtDateTime(s)]).toEqual(
						labels(ms + frac)
					);
				}),
				{ numRuns: 3_000 }
			);
		});

		it('asks Intl outside the covered years, and refuses an invalid time as Intl does', () => {
			for (const ms of [Date.UTC(1999, 6, 4, 12), Date.UTC(2150, 0, 1), -1, 0.5])
				expect(etParts(ms)).toEqual(intl(ms));
			expect(() => etParts(Number.NaN)).toThrow(RangeError);
		});
	});
});

describe('etDay', () => {
	const intlDay = new Intl.DateTimeFormat('en-CA', {
		timeZone: ET_ZONE,
		year: 'numeric',
		month: '2-digit',
		day: '2-digit'
	});

	it("is Intl's ET calendar day for any run of seconds, across midnights and DST switches (property)", () => {
		// Runs of nearby seconds (the same hour asked again and again, as a series asks), around
		// the switches and midnights of a few years, and anywhere from 1900 to 2100.
		const anchors = [
			Date.UTC(2026, 2, 8, 7) / 1000, // EST -> EDT, 02:00 ET
			Date.UTC(2026, 10, 1, 6) / 1000, // EDT -> EST, 02:00 ET
			Date.UTC(2026, 10, 23, 5) / 1000, // 00:00 EST
			Date.UTC(2026, 6, 14, 4) / 1000, // 00:00 EDT
			Date.UTC(2007, 2, 11, 7) / 1000,
			Date.UTC(2099, 10, 1, 6) / 1000
		];
		const run = fc.tuple(
			fc.oneof(
				fc.constantFrom(...anchors),
				fc.integer({ min: Date.UTC(1900, 0, 1) / 1000, max: Date.UTC(2100, 11, 31) / 1000 })
			),
			fc.array(fc.integer({ min: -7200, max: 7200 }), { minLength: 1, maxLength: 40 })
		);
		fc.assert(
			fc.property(fc.array(run, { minLength: 1, maxLength: 6 }), (runs) => {
				for (const [at, offsets] of runs) {
					for (const o of offsets) {
						const t = at + o;
						expect(etDay(t), String(t)).toBe(intlDay.format(new Date(t * 1000)));
					}
				}
			}),
			{ numRuns: 300 }
		);
	});
});
