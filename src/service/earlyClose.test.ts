/**
 * Early-close sessions (13:00 ET, src/lib/contract/marketCalendar.ts) through the whole market:
 * the clock, the chain's settlement times, the price path, the engine day and the history store.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
	SessionClock,
	etToUtc,
	lastCompletedSession,
	marketPosition,
	sessionCloseMs,
	sessionSeconds
} from './market/clock';
import { isRegularTradingHours, sessionBounds } from '../lib/contract/newYorkTime';
import { buildChain } from './market/chainDay';
import { sessionPath } from './market/path';
import { futuresConversionAt } from './market/futuresBasis';
import { createMarket } from './simulatedMarket';
import { TickerDay } from './engine/tickerDay';
import { LiveEngine } from './engine/live';
import type { GexChainValue } from './engine/categoryPayloads';

const EARLY = '2026-11-27'; // the day after Thanksgiving (EST: 13:00 ET = 18:00Z)
const YEAR_MS = 365 * 86_400_000;

describe('early-close sessions', () => {
	it('end RTH at 13:00:00 ET and leave the close tick as the position', () => {
		expect(sessionSeconds(EARLY)).toBe(12_600);
		expect(sessionSeconds('2026-11-25')).toBe(23_400);
		expect(new Date(sessionBounds(EARLY).close * 1000).toISOString()).toBe(
			'2026-11-27T18:00:00.000Z'
		);
		expect(sessionCloseMs(EARLY)).toBe(sessionBounds(EARLY).close * 1000);
		expect(isRegularTradingHours(etToUtc(EARLY, 12, 59, 59))).toBe(true);
		expect(isRegularTradingHours(etToUtc(EARLY, 13, 0, 0))).toBe(true); // the close tick
		expect(isRegularTradingHours(etToUtc(EARLY, 13, 0, 1))).toBe(false);
		expect(isRegularTradingHours(etToUtc('2026-12-24', 14, 0))).toBe(false);
		expect(marketPosition(etToUtc(EARLY, 12, 0))).toEqual({ date: EARLY, tick: 9000, open: true });
		expect(marketPosition(etToUtc(EARLY, 15, 0))).toEqual({
			date: EARLY,
			tick: 12_600,
			open: false
		});
		// Over the weekend the served session is the short one, at its 13:00 close.
		expect(marketPosition(etToUtc('2026-11-30', 8, 0))).toEqual({
			date: EARLY,
			tick: 12_600,
			open: false
		});
		expect(lastCompletedSession(etToUtc(EARLY, 12, 59, 59))).toBe('2026-11-25');
		expect(lastCompletedSession(etToUtc(EARLY, 13, 0))).toBe(EARLY);
	});

	it('replay a 3.5-hour session on the session clock after an early close', () => {
		const close = etToUtc(EARLY, 13, 0);
		const open = etToUtc(EARLY, 9, 30);
		let wall = close + 3.5 * 3600_000 + 10_000; // one loop of the short session plus 10 s
		const clock = new SessionClock({ mode: 'session', wall: () => wall });
		expect(clock.nowMs()).toBe(open + 10_000);
		wall = close + 3 * 3600_000;
		expect(clock.nowMs()).toBe(open + 3 * 3600_000);
		expect(marketPosition(clock.nowMs()).open).toBe(true);
	});

	it('settle that day`s expiries at 13:00, seen from the day and from before it', () => {
		const day = buildChain(1, 'SPX', EARLY);
		expect(day.expiries[0]).toBe(EARLY);
		expect(day.expiryMs[0]).toBe(sessionCloseMs(EARLY));
		expect(new Date(day.expiryMs[0]).toISOString()).toBe('2026-11-27T18:00:00.000Z');
		const before = buildChain(1, 'SPX', '2026-11-20');
		const i = before.expiries.indexOf(EARLY);
		expect(i).toBeGreaterThan(0);
		expect(before.expiryMs[i]).toBe(etToUtc(EARLY, 13, 0));
		const xmas = before.expiries.indexOf('2026-12-24');
		expect(before.expiryMs[xmas]).toBe(etToUtc('2026-12-24', 13, 0));
		// A normal day still settles at 16:00.
		const normal = before.expiries.indexOf('2026-11-25');
		expect(before.expiryMs[normal]).toBe(etToUtc('2026-11-25', 16, 0));
	});

	it('run the engine day from 09:30 to 13:00 with time to expiry measured to 13:00', () => {
		expect(sessionPath(1, 'SPX', EARLY)).toHaveLength(12_601);
		const day = new TickerDay(1, 'AAPL', EARLY);
		expect(day.closeTick).toBe(12_600);
		day.step('trades');
		const first = day.chain.expiryStart[0];
		expect(day.years[first]).toBeCloseTo(12_600_000 / YEAR_MS, 15);
		while (day.tick < 6000) day.step('trades');
		day.step('rings');
		expect(day.years[first]).toBeCloseTo(((12_600 - 6001) * 1000) / YEAR_MS, 15);
		let steps = 0;
		while (day.step('trades')) steps++;
		expect(day.tick).toBe(12_600);
		expect(steps).toBe(12_600 - 6001);
		expect(day.step('rings')).toBe(false);
		expect(day.timestampOf(day.tick)).toBe(etToUtc(EARLY, 13, 0) / 1000);
		// The futures basis is marked at the 13:00 close like at 16:00 on a normal day.
		const at = (tick: number) => futuresConversionAt(1, 'SPX', 'ES', EARLY, tick);
		expect(at(12_600)).toEqual(at(99_999));
		expect(at(12_600)).not.toEqual(at(11_700));
	});

	it('stop trades and live analytics at 13:00 and publish no tick after it', async () => {
		let wall = etToUtc(EARLY, 12, 59, 50);
		const live = new LiveEngine(7, ['AAPL'], new SessionClock({ mode: 'real', wall: () => wall }));
		let published = 0;
		live.onTick(() => published++);
		await live.advance(Infinity);
		expect(live.tick).toBe(12_590);
		wall = etToUtc(EARLY, 13, 0, 0);
		await live.advance(Infinity);
		expect(live.tick).toBe(12_600);
		expect(published).toBe(2);
		const atClose = live.latest('AAPL')?.payloads.get('classic/gex_zero')?.body;
		expect(atClose).toBeDefined();
		wall = etToUtc(EARLY, 14, 30);
		await live.advance(Infinity);
		expect(live.tick).toBe(12_600);
		expect(published).toBe(2);
		const later = live.latest('AAPL')?.payloads.get('classic/gex_zero');
		expect(later?.timestamp).toBe(etToUtc(EARLY, 13, 0) / 1000);
		expect(later?.body.equals(atClose as Buffer)).toBe(true);
		const chain = later?.value as GexChainValue;
		expect(chain.min_dte).toBe(0);
	});

	it('serve a past early-close day as 09:30-13:00 history', async () => {
		const dataDir = await mkdtemp(join(tmpdir(), 'gexdeck-early-'));
		try {
			const market = await createMarket({
				seed: 5,
				clock: 'real',
				start: new Date(etToUtc('2026-11-30', 8, 0)),
				dataDir,
				tickers: ['TSLA']
			});
			expect(market.lastCompletedSession()).toBe(EARLY);
			expect(market.isOpen(new Date(etToUtc(EARLY, 13, 30)))).toBe(false);
			const body = await market.history('TSLA', 'classic', 'gex_one', EARLY);
			const records = JSON.parse(body.toString()) as GexChainValue[];
			expect(records).toHaveLength(12_601);
			expect(records[0].timestamp).toBe(etToUtc(EARLY, 9, 30) / 1000);
			expect(records.at(-1)?.timestamp).toBe(etToUtc(EARLY, 13, 0) / 1000);
			market.stop();
		} finally {
			await rm(dataDir, { recursive: true, force: true });
		}
		// The whole ticker-day (every category) is generated for the first request.
	}, 240_000);
});
