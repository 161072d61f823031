import { mkdtempSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { HistoryUnavailableError, type TickEvent } from './source';
import { generateDay, historyCacheFolder } from './history/historyStore';
import { createMarket } from './simulatedMarket';

const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-market-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('createMarket', async () => {
	let wall = Date.parse('2026-11-20T15:00:00Z'); // Friday 10:00 ET
	const market = await createMarket({
		seed: 5,
		clock: 'real',
		dataDir,
		tickers: ['VIX', 'VIXW', 'SPY', 'GLD'],
		wall: () => wall,
		historyWaitMs: 120_000
	});
	await market.start();
	afterAll(() => market.stop());

	it('serves the current second once started', () => {
		expect(market.now().toISOString()).toBe('2026-11-20T15:00:00.000Z');
		expect(market.isOpen()).toBe(true);
		expect(market.isOpen(new Date('2026-11-21T15:00:00Z'))).toBe(false);
		const p = market.snapshot('VIX', 'classic', 'gex_full');
		expect(p?.timestamp).toBe(wall / 1000);
		expect(JSON.parse(p!.body.toString()).ticker).toBe('VIX');
		expect(market.majors('VIXW', 'state', 'gex_zero')).toBeDefined();
		expect(market.maxchange('SPY', 'classic', 'gex_one')).toBeDefined();
		expect(market.snapshot('AAPL', 'classic', 'gex_full')).toBeUndefined();
		expect(market.hasTicker('VIXW')).toBe(true);
		expect(market.hasTicker('NOPE')).toBe(false);
		expect(market.tickers().indexes).toContain('SPXW');
		expect(market.quantTickers().indexes).toEqual(['XSP']);
	});

	it('ticks every simulated second and notifies listeners', async () => {
		const events: TickEvent[] = [];
		const off = market.onTick((e) => events.push(e));
		wall += 5000;
		await new Promise((r) => setTimeout(r, 1200));
		off();
		expect(events.length).toBeGreaterThanOrEqual(1);
		const e = events[events.length - 1];
		expect(e.timestamp).toBe(wall / 1000);
		const vix = e.tickers.get('VIX');
		expect(vix?.payloads.get('orderflow/orderflow')?.timestamp).toBe(e.timestamp);
		expect(vix?.expiryPayloads?.get('charm_20261125')?.value).toBeDefined(); // 5-second tick
	});

	it('answers expiries, futures conversion, research quotes and the last session', () => {
		expect(market.expiries('SPY')[0]).toBe('2026-11-20');
		expect(market.expiries('VIXW')[0]).toBe('2026-11-25'); // VIX weeklies settle on Wednesdays
		expect(market.futuresConversion('GLD', 'GC')?.future_contract).toMatch(/^GC[FGHJKMNQUVXZ]\d$/);
		expect(market.futuresConversion('GLD', 'ES')).toBeUndefined();
		const research = market.researchChain('SPY');
		expect(research?.timestamp).toBe(Date.parse('2026-11-20T15:00:00Z') / 1000); // 15-minute floor
		expect(research?.contracts.length).toBeGreaterThan(100);
		const c = research!.contracts[0];
		expect(c.ask).toBeGreaterThan(c.bid);
		expect(market.researchChain('NOPE')).toBeUndefined();
		expect(market.lastCompletedSession()).toBe('2026-11-19');
		const p = market.expirySnapshot('VIX', 'gamma', '2026-11-25');
		expect(JSON.parse(p!.body.toString())).toMatchObject({ ticker: 'VIX', min_dte: 5 });
		expect(market.expirySnapshot('VIX', 'gamma', '20261125')).toBe(p);
		expect(market.expirySnapshot('VIX', 'gamma', '2026-11-26')).toBeUndefined();
	});

	it('regenerates a past day on demand, caches it as gzip, and refuses bad requests', async () => {
		const day = await market.history('VIXW', 'state', 'gamma_zero', '2026-11-18');
		const records = JSON.parse(day.toString()) as { timestamp: number; ticker: string }[];
		expect(records).toHaveLength(23_401);
		expect(records[0].timestamp).toBe(Date.parse('2026-11-18T14:30:00Z') / 1000);
		expect(records[23_400].timestamp).toBe(Date.parse('2026-11-18T21:00:00Z') / 1000);
		expect(records[0].ticker).toBe('VIXW');
		const cached = join(dataDir, 'history', historyCacheFolder(5), '2026-11-18', 'VIXW');
		expect(existsSync(join(cached, 'gamma_zero.json.gz'))).toBe(true);
		expect((await market.history('VIXW', 'state', 'gamma_zero', '2026-11-18')).equals(day)).toBe(
			true
		);

		const today = JSON.parse(
			(await market.history('VIX', 'classic', 'gex_zero', '2026-11-20')).toString()
		);
		expect(today.length).toBe(wall / 1000 - Date.parse('2026-11-20T14:30:00Z') / 1000 + 1);
		expect(today.length).toBe(1806);
		// A later request continues the same generation: the earlier array is a prefix.
		const first = await market.history('VIX', 'classic', 'gex_zero', '2026-11-20');
		wall += 10_000;
		const later = await market.history('VIX', 'classic', 'gex_zero', '2026-11-20');
		expect(JSON.parse(later.toString())).toHaveLength(1816);
		expect(later.subarray(0, first.length - 1).equals(first.subarray(0, first.length - 1))).toBe(
			true
		);
		expect(later.equals(await generateDay(5, 'VIX', 'gex_zero', '2026-11-20', 1815))).toBe(true);

		const refused = async (
			date: string,
			status: number,
			pkg: 'classic' | 'orderflow' = 'classic'
		) => {
			const err = await market.history('VIX', pkg, 'gex_full', date).catch((e: unknown) => e);
			expect(err).toBeInstanceOf(HistoryUnavailableError);
			expect((err as HistoryUnavailableError).status).toBe(status);
		};
		await refused('2026-08-20', 400); // older than 90 days
		await refused('2026-08-21', 400); // day 91 (a Friday): outside the window
		await refused('2026-08-22', 404); // day 90: inside the window, but a Saturday
		const tomorrow = await market
			.history('VIX', 'classic', 'gex_full', '2026-11-21')
			.catch((e: unknown) => e as Error);
		expect((tomorrow as Error).message).toBe('No history for future date 2026-11-21.');
		await refused('2026-11-21', 404); // Saturday
		await refused('2026-11-23', 404); // future
		await refused('2026-11-31', 400);
		await refused('2026-11-18', 400, 'orderflow');
	}, 240_000);

	it('generates every category of a ticker-day in one pass; later categories are file reads', async () => {
		const started = market.historyQueue.started;
		const files = await market.historyDayFiles(
			'VIX',
			[
				{ pkg: 'classic', category: 'gex_one' },
				{ pkg: 'state', category: 'vanna_zero' },
				{ pkg: 'orderflow', category: 'orderflow' }
			],
			'2026-11-17'
		);
		expect([...files.keys()]).toEqual([
			'classic/gex_one',
			'state/vanna_zero',
			'orderflow/orderflow'
		]);
		const dir = join(dataDir, 'history', historyCacheFolder(5), '2026-11-17', 'VIX');
		for (const c of ['gex_full', 'gex_zero', 'delta_one', 'volume_zero', 'charm_one'])
			expect(existsSync(join(dir, `${c}.json.gz`)), c).toBe(true);
		const gexOne = files.get('classic/gex_one')!;
		const bytes = readFileSync(gexOne.file);
		expect(bytes.length).toBe(gexOne.size);
		expect(crc32(bytes) >>> 0).toBe(gexOne.crc);
		// The one-pass file and a GEX-only pass (gamma mode) agree byte for byte.
		const alone = await generateDay(5, 'VIX', 'gex_one', '2026-11-17');
		expect(gunzipSync(bytes).equals(alone)).toBe(true);
		// Another category of the same day, by another package: no second generation. The State
		// chain is the classic one with its OI side as the observed 0 (payload profile).
		const state = await market.history('VIX', 'state', 'gex_one', '2026-11-17');
		const delta = await market.historyFile('VIX', 'state', 'delta_zero', '2026-11-17');
		const classicDay = JSON.parse(alone.toString()) as {
			timestamp: number;
			strikes: number[][];
			sum_gex_oi: number;
		}[];
		const stateDay = JSON.parse(state.toString()) as typeof classicDay;
		expect(stateDay.map((r) => r.timestamp)).toEqual(classicDay.map((r) => r.timestamp));
		expect(stateDay.every((r) => r.sum_gex_oi === 0 && r.strikes.every((k) => k[2] === 0))).toBe(
			true
		);
		expect(classicDay.some((r) => r.sum_gex_oi !== 0)).toBe(true);
		const both = await market.historyDayFiles(
			'VIX',
			[
				{ pkg: 'classic', category: 'gex_one' },
				{ pkg: 'state', category: 'gex_one' }
			],
			'2026-11-17'
		);
		expect(both.get('classic/gex_one')?.file).toBe(join(dir, 'gex_one.json.gz'));
		expect(both.get('state/gex_one')?.file).toBe(join(dir, 'state_gex_one.json.gz'));
		expect(delta?.file).toBe(join(dir, 'delta_zero.json.gz'));
		expect(market.historyQueue.started).toBe(started + 1);
		const err = await market
			.history('VIX', 'classic', 'orderflow', '2026-11-17')
			.catch((e: unknown) => e);
		expect((err as HistoryUnavailableError).status).toBe(400);
	}, 240_000);

	it("publishes the new session's open interest to research before the open", async () => {
		let early = Date.parse('2026-11-20T12:59:00Z'); // Friday 07:59 ET: Thursday's close
		const m = await createMarket({
			seed: 5,
			clock: 'real',
			dataDir,
			tickers: ['GLD'],
			wall: () => early
		});
		await m.start();
		m.stop();
		const before = m.researchChain('GLD')!;
		expect(before.timestamp).toBe(Date.parse('2026-11-19T21:00:00Z') / 1000);
		early = Date.parse('2026-11-20T13:15:00Z'); // 08:15 ET
		const after = m.researchChain('GLD')!;
		expect(after.timestamp).toBe(before.timestamp); // quotes still the close's
		expect(after.contracts.every((c) => c.volume === 0 && c.expiry >= '2026-11-20')).toBe(true);
		expect(after.contracts.map((c) => c.open_interest)).not.toEqual(
			before.contracts.map((c) => c.open_interest)
		);
	});

	it('prepares the EOD tickers in the background after the close; a request then reads the file', async () => {
		let clockWall = Date.parse('2026-11-20T20:59:57Z'); // Friday 15:59:57 ET
		const m = await createMarket({
			seed: 5,
			clock: 'real',
			dataDir,
			tickers: ['HYG'],
			wall: () => clockWall,
			eodTickers: ['HYG', 'NOT_SERVED']
		});
		await m.start();
		try {
			expect(m.historyQueue.started).toBe(0);
			clockWall = Date.parse('2026-11-20T21:00:20Z'); // 16:00:20: the close has passed
			const manifest = join(
				dataDir,
				'history',
				historyCacheFolder(5),
				'2026-11-20',
				'HYG',
				'manifest.json'
			);
			const deadline = Date.now() + 150_000;
			while (!existsSync(manifest)) {
				if (Date.now() > deadline) throw new Error('no background preparation after the close');
				await new Promise((r) => setTimeout(r, 200));
			}
			expect(m.historyQueue.started).toBe(1);
			const file = await m.historyFile('HYG', 'orderflow', 'orderflow', '2026-11-20');
			expect(file?.size).toBeGreaterThan(0);
			expect(m.historyQueue.started).toBe(1);
		} finally {
			m.stop();
		}
	}, 180_000);

	it('gives up waiting past its bound with a clear error', async () => {
		const impatient = await createMarket({
			seed: 6,
			clock: 'real',
			dataDir,
			tickers: ['GLD'],
			wall: () => wall,
			historyWaitMs: 20
		});
		const err = await impatient
			.history('GLD', 'classic', 'gex_full', '2026-11-16')
			.catch((e: unknown) => e);
		expect(err).toBeInstanceOf(HistoryUnavailableError);
		expect((err as HistoryUnavailableError).status).toBe(504);
		expect((err as Error).message).toMatch(/still being generated/);
	});
});
