import { describe, expect, it } from 'vitest';
import { buildChain } from './chainDay';
import { frontMonthContract, listExpiries } from './calendar';
import { futuresConversionAt } from './futuresBasis';
import { sessionClose, sessionPath } from './path';
import { previousTradingDay } from './clock';

const DATE = '2026-11-18';

describe('price paths', () => {
	it('are deterministic in (seed, ticker, date) and differ across seeds', () => {
		const a = sessionPath(11, 'SPX', DATE);
		const b = Float64Array.from(sessionPath(11, 'SPX', DATE));
		expect(Buffer.from(b.buffer).equals(Buffer.from(a.buffer))).toBe(true);
		expect(sessionPath(12, 'SPX', DATE)[100]).not.toBe(a[100]);
		expect(a).toHaveLength(23_401);
	});

	it('end at the session close and move like an index does', () => {
		const path = sessionPath(5, 'SPX', DATE);
		expect(path[path.length - 1]).toBeCloseTo(sessionClose(5, 'SPX', DATE), 1);
		const moves: number[] = [];
		let d = DATE;
		for (let i = 0; i < 120; i++) {
			const prev = previousTradingDay(d);
			moves.push(Math.log(sessionClose(5, 'SPX', d) / sessionClose(5, 'SPX', prev)));
			d = prev;
		}
		const sd = Math.sqrt(moves.reduce((s, x) => s + x * x, 0) / moves.length);
		// SPX-like: about 1% a day, never a crash every week.
		expect(sd).toBeGreaterThan(0.004);
		expect(sd).toBeLessThan(0.02);
		expect(Math.max(...moves.map(Math.abs))).toBeLessThan(0.1);
	});

	it('keeps SPY tracking SPX', () => {
		const spx = sessionPath(3, 'SPX', DATE);
		const spy = sessionPath(3, 'SPY', DATE);
		const r1 = spx[0] / spy[0];
		const r2 = spx[23_400] / spy[23_400];
		expect(Math.abs(r1 / r2 - 1)).toBeLessThan(0.01);
	});
});

describe('chains', () => {
	it('list SPX dailies with a same-day expiry and 5-point strikes near the money', () => {
		const chain = buildChain(2, 'SPX', DATE);
		expect(chain.expiries[0]).toBe(DATE);
		expect(chain.expiries.slice(0, 3)).toEqual(['2026-11-18', '2026-11-19', '2026-11-20']);
		const near = Array.from(chain.strikes).filter((k) => Math.abs(k / chain.refSpot - 1) < 0.01);
		for (let i = 1; i < near.length; i++) expect(near[i] - near[i - 1]).toBe(5);
	});

	it('list stock weeklies (Fridays) and monthlies', () => {
		expect(listExpiries('weekly', DATE).slice(0, 2)).toEqual(['2026-11-20', '2026-11-27']);
		expect(listExpiries('weekly', DATE)).toContain('2027-01-15'); // third Friday of January
	});

	it('concentrate open interest at round strikes and in OTM index puts', () => {
		const chain = buildChain(2, 'SPX', DATE);
		let round = 0;
		let roundN = 0;
		let other = 0;
		let otherN = 0;
		let otmPut = 0;
		let otmCall = 0;
		for (let c = 0; c < chain.n; c++) {
			const k = chain.strike[c];
			if (Math.abs(k / chain.refSpot - 1) > 0.05) continue;
			if (k % 100 === 0) {
				round += chain.openInterest[c];
				roundN++;
			} else if (k % 25 !== 0) {
				other += chain.openInterest[c];
				otherN++;
			}
			if (chain.isCall[c] === 0 && k < chain.refSpot * 0.97) otmPut += chain.openInterest[c];
			if (chain.isCall[c] === 1 && k > chain.refSpot * 1.03) otmCall += chain.openInterest[c];
		}
		expect(round / roundN).toBeGreaterThan((2 * other) / otherN);
		expect(otmPut).toBeGreaterThan(otmCall);
	});

	it('is the same chain for the same (seed, date)', () => {
		const a = buildChain(9, 'AAPL', DATE);
		const b = buildChain(9, 'AAPL', DATE);
		expect(Array.from(a.openInterest)).toEqual(Array.from(b.openInterest));
		expect(Array.from(buildChain(10, 'AAPL', DATE).openInterest)).not.toEqual(
			Array.from(a.openInterest)
		);
	});
});

describe('futures conversion', () => {
	it('names the front month and refuses undocumented pairs', () => {
		expect(frontMonthContract('ES', '2026-11-20')).toBe('ESZ6');
		expect(frontMonthContract('ES', '2026-12-14')).toBe('ESH7'); // rolled 8 days before expiry
		const spx = futuresConversionAt(1, 'SPX', 'ES', DATE, 100);
		expect(spx).toMatchObject({ future_contract: 'ESZ6', multiplier: 1 });
		expect(spx?.additive).toBeGreaterThan(0);
		const spy = futuresConversionAt(1, 'SPY', 'ES', DATE, 100);
		expect(spy?.multiplier).toBeGreaterThan(9);
		expect(futuresConversionAt(1, 'SPX', 'NQ', DATE, 100)).toBeUndefined();
		expect(futuresConversionAt(1, 'AAPL', 'ES', DATE, 100)).toBeUndefined();
	});

	it('converts with the multiplier: a ticker and its index give the same future price', () => {
		const at = (ticker: string, tick: number) => {
			const mark = Math.min(Math.floor(tick / 900) * 900, 23_400);
			return sessionPath(1, ticker, DATE)[mark];
		};
		for (const [etf, index, future] of [
			['SPY', 'SPX', 'ES'],
			['QQQ', 'NDX', 'NQ'],
			['IWM', 'RUT', 'RTY']
		]) {
			for (const tick of [100, 9_000, 23_400]) {
				const a = futuresConversionAt(1, etf, future, DATE, tick)!;
				const b = futuresConversionAt(1, index, future, DATE, tick)!;
				expect(a.multiplier, etf).toBeGreaterThan(4);
				const viaEtf = at(etf, tick) * a.multiplier + a.additive;
				const viaIndex = at(index, tick) * b.multiplier + b.additive;
				// The multiplier is quoted to 4 decimals, the additive to cents.
				expect(Math.abs(viaEtf - viaIndex), `${etf}/${future} at ${tick}`).toBeLessThan(0.1);
			}
		}
		// The contract's other multipliers: the basis is carry on the future's own level
		// (a fraction of a percent of it), not on the ETF's.
		for (const [ticker, future, multiplier] of [
			['DIA', 'YM', 100],
			['GLD', 'GC', 10.87],
			['USO', 'CL', 0.82]
		] as const) {
			const c = futuresConversionAt(1, ticker, future, DATE, 9_000)!;
			expect(c.multiplier).toBe(multiplier);
			const basis = c.additive / (at(ticker, 9_000) * multiplier);
			expect(basis, ticker).toBeGreaterThan(0.0005);
			expect(basis, ticker).toBeLessThan(0.01);
		}
	});

	it('re-marks the basis every 15 minutes only', () => {
		const a = futuresConversionAt(1, 'NDX', 'NQ', DATE, 900);
		const b = futuresConversionAt(1, 'NDX', 'NQ', DATE, 1799);
		const c = futuresConversionAt(1, 'NDX', 'NQ', DATE, 1800);
		expect(b).toEqual(a);
		expect(c?.additive).not.toBe(a?.additive);
	});
});
