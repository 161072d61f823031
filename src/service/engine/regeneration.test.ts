/**
 * The model is deterministic in (seed, date): a day regenerated from scratch must reproduce,
 * byte for byte, what the live loop published, even when the live loop started mid-session
 * (trades-only fast-forward) and advanced in multi-second jumps as it does at high speed. The
 * days compared are the one-pass generator's gzip day files (history/tickerDayFiles.ts), the
 * files history and the EOD report serve.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionClock } from '../market/clock';
import { generateDay, generateDays } from '../history/historyStore';
import { dayFileName, readManifest, writeTickerDay } from '../history/tickerDayFiles';
import type { CanonicalCategory } from '../source';
import { LiveEngine } from './live';

const scratch = mkdtempSync(join(tmpdir(), 'gexdeck-regeneration-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Every category's records of a ticker-day written by the one-pass generator through endTick. */
async function dayFiles(
	ticker: string,
	date: string,
	endTick: number
): Promise<(category: CanonicalCategory) => string[]> {
	const dir = join(scratch, `${ticker}-${date}-${endTick}`);
	const manifest = await writeTickerDay({ seed: SEED, ticker, date, dir, endTick });
	expect(await readManifest(dir)).toEqual(manifest);
	const cache = new Map<CanonicalCategory, string[]>();
	return (category) => {
		let records = cache.get(category);
		if (!records) {
			const text = gunzipSync(readFileSync(join(dir, dayFileName(category)))).toString();
			records = (JSON.parse(text) as unknown[]).map((r) => JSON.stringify(r));
			expect(`[${records.join(',')}]`).toBe(text);
			cache.set(category, records);
		}
		return records;
	};
}

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
		const files = new Map<string, (category: CanonicalCategory) => string[]>();
		for (const s of samples) {
			if (!files.has(s.ticker)) files.set(s.ticker, await dayFiles(s.ticker, DATE, lastTick));
			const records = (files.get(s.ticker) as (c: CanonicalCategory) => string[])(s.category);
			expect(records).toHaveLength(lastTick + 1);
			expect(
				Buffer.from(records[s.tick]).equals(s.body),
				`${s.ticker} ${s.category} @${s.tick}`
			).toBe(true);
		}
		expect(samples.length).toBeGreaterThanOrEqual(44);
		// The in-memory generator of the live day writes the same arrays as the day files.
		const memory = await generateDay(SEED, 'AAPL', 'charm_one', DATE, lastTick);
		expect(memory.toString()).toBe(
			`[${(files.get('AAPL') as (c: CanonicalCategory) => string[])('charm_one').join(',')}]`
		);
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
		// One engine pass per ticker-day, asked for more than the day has: it ends at 13:00.
		const checked = new Set<string>();
		const readers = new Map<string, (category: CanonicalCategory) => string[]>();
		for (const ticker of ['AAPL', 'ES_SPX']) {
			const records = await dayFiles(ticker, early, 23_400);
			readers.set(ticker, records);
			for (const [key, category] of keys) {
				expect(records(category)).toHaveLength(12_601);
				for (const s of samples.filter((x) => x.ticker === ticker && x.key === key)) {
					expect(
						Buffer.from(records(category)[s.tick]).equals(s.body),
						`${ticker} ${key} @${s.tick}`
					).toBe(true);
					checked.add(`${ticker} ${key} ${s.tick}`);
				}
			}
		}
		expect(checked.size).toBeGreaterThanOrEqual(18);
		// A GEX-only in-memory pass (gamma mode) agrees with the all-category day file.
		const gexOnly = await generateDays(SEED, 'AAPL', ['gex_full'], early);
		expect((gexOnly.get('gex_full') as Buffer).toString()).toBe(
			`[${(readers.get('AAPL') as (c: CanonicalCategory) => string[])('gex_full').join(',')}]`
		);
	}, 420_000);
});
