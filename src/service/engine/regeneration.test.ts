/**
 * The model is deterministic in (seed, date): a day regenerated from scratch must reproduce,
 * byte for byte, what the live loop published, even when the live loop started mid-session
 * (trades-only fast-forward) and advanced in multi-second jumps as it does at high speed.
 */
import { describe, expect, it } from 'vitest';
import { SessionClock } from '../market/clock';
import { generateDay, generateDays } from '../market/history';
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

	it('reproduces an early-close day (09:30-13:00 ET), up to and after its close', async () => {
		const early = '2026-11-27'; // the day after Thanksgiving: 13:00 ET = 18:00Z
		let wall = Date.parse('2026-11-27T17:20:00Z'); // 12:20 ET: trades-only catch-up first
		const clock = new SessionClock({ mode: 'real', wall: () => wall });
		const live = new LiveEngine(SEED, ['AAPL', 'ES_SPX'], clock);
		await live.advance(Infinity);
		const samples: { tick: number; ticker: string; key: string; body: Buffer }[] = [];
		const keys: [string, CanonicalCategory][] = [
			['classic/gex_full', 'gex_full'],
			['state/vanna_zero', 'vanna_zero'],
			['orderflow/orderflow', 'orderflow']
		];
		// From 12:59:29 in 13 s jumps: past 13:00 the loop must hold the 13:00 close tick.
		wall = Date.parse('2026-11-27T17:59:29Z');
		for (let jump = 0; jump < 6; jump++, wall += 13_000) {
			await live.advance(Infinity);
			for (const ticker of ['AAPL', 'ES_SPX'])
				for (const [key] of keys) {
					const body = live.latest(ticker)?.payloads.get(key)?.body;
					expect(body, `${ticker} ${key}`).toBeDefined();
					samples.push({ tick: live.tick, ticker, key, body: body as Buffer });
				}
		}
		expect(Math.max(...samples.map((s) => s.tick))).toBe(12_600);
		// One engine pass per ticker, to the day's own end (no end tick given); ES_SPX (the whole
		// SPX chain) on the GEX path only, to keep the test short.
		const checked = new Set<string>();
		for (const [ticker, wanted] of [
			['AAPL', keys],
			['ES_SPX', keys.slice(0, 1)]
		] as const) {
			const days = await generateDays(
				SEED,
				ticker,
				wanted.map(([, c]) => c),
				early
			);
			for (const [key, category] of wanted) {
				const records = JSON.parse((days.get(category) as Buffer).toString()) as unknown[];
				expect(records).toHaveLength(12_601);
				for (const s of samples.filter((x) => x.ticker === ticker && x.key === key)) {
					expect(
						Buffer.from(JSON.stringify(records[s.tick])).equals(s.body),
						`${ticker} ${key} @${s.tick}`
					).toBe(true);
					checked.add(`${ticker} ${key} ${s.tick}`);
				}
			}
		}
		expect(checked.size).toBeGreaterThanOrEqual(12);
	}, 180_000);
});
