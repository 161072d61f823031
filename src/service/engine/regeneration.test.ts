/**
 * The model is deterministic in (seed, date): a day regenerated from scratch must reproduce,
 * byte for byte, what the live loop published, even when the live loop started mid-session
 * (trades-only fast-forward) and advanced in multi-second jumps as it does at high speed.
 */
import { describe, expect, it } from 'vitest';
import { SessionClock } from '../market/clock';
import { generateDay } from '../market/history';
import type { CanonicalCategory } from '../source';
import { LiveEngine } from './live';

const SEED = 42;
const DATE = '2026-11-18';
const OPEN = Date.parse('2026-11-18T14:30:00Z');

describe('live loop vs regeneration', () => {
	it('publishes exactly the bytes a regenerated day holds', async () => {
		// Start 35 minutes into the session so the catch-up uses the trades-only path.
		let wall = OPEN + 2100_000;
		const clock = new SessionClock({ mode: 'real', wall: () => wall });
		const live = new LiveEngine(SEED, ['AAPL', 'VIX', 'VIXW', 'ES_SPX'], clock);
		await live.advance(Infinity);
		const samples: { tick: number; ticker: string; category: CanonicalCategory; body: Buffer }[] =
			[];
		const categories: [string, CanonicalCategory][] = [
			['classic', 'gex_full'],
			['state', 'gamma_zero'],
			['state', 'charm_one'],
			['state', 'volume_zero'],
			['orderflow', 'orderflow']
		];
		for (let jump = 0; jump < 12; jump++) {
			wall += 7000; // the loop advances several simulated seconds per iteration at high speed
			await live.advance(Infinity);
			if (jump % 3 !== 0) continue;
			for (const ticker of ['AAPL', 'VIXW', 'ES_SPX'])
				for (const [pkg, category] of ticker === 'ES_SPX' ? categories.slice(1, 2) : categories) {
					const body = live.latest(ticker)?.payloads.get(`${pkg}/${category}`)?.body;
					expect(body, `${ticker} ${category}`).toBeDefined();
					samples.push({ tick: live.tick, ticker, category, body: body as Buffer });
				}
		}
		const lastTick = Math.max(...samples.map((s) => s.tick));
		const regenerated = new Map<string, Buffer>();
		for (const s of samples) {
			const key = `${s.ticker}|${s.category}`;
			if (!regenerated.has(key))
				regenerated.set(key, await generateDay(SEED, s.ticker, s.category, DATE, lastTick));
			const day = regenerated.get(key) as Buffer;
			const record = JSON.parse(day.toString())[s.tick] as unknown;
			expect(Buffer.from(JSON.stringify(record)).equals(s.body), `${key} @${s.tick}`).toBe(true);
			expect(day.includes(s.body)).toBe(true);
		}
		expect(samples.length).toBeGreaterThanOrEqual(44);
	});

	it('regenerates the same day twice identically', async () => {
		const a = await generateDay(SEED, 'TSLA', 'gex_zero', DATE, 300);
		const b = await generateDay(SEED, 'TSLA', 'gex_zero', DATE, 300);
		expect(a.equals(b)).toBe(true);
		const c = await generateDay(SEED + 1, 'TSLA', 'gex_zero', DATE, 300);
		expect(a.equals(c)).toBe(false);
		expect(JSON.parse(a.toString())).toHaveLength(301);
	});
});
