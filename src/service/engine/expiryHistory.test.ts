/**
 * Priors and max changes of the explicit-expiry payloads (gex_YYYYMMDD, greek YYYYMMDD profiles)
 * against a direct computation: a separate engine day stepped to the lagged second, its per-strike
 * sums for the expiry taken from the live arrays (as a Lookback ring would have stored them).
 */
import { describe, expect, it } from 'vitest';
import { maxChange } from '../../lib/analytics/keyStrikes';
import { SessionClock } from '../market/clock';
import { LaggedVolume } from './laggedVolume';
import { CHANGE_LAGS } from './lookback';
import { LiveEngine } from './live';
import type { GexChainValue, GreekProfileValue } from './categoryPayloads';
import { r2, r3 } from './rounding';
import { TickerDay } from './tickerDay';

const SEED = 3;
const DATE = '2026-11-18';
const OPEN = Date.parse('2026-11-18T14:30:00Z');

/** Per strike slot of one expiry (ascending), as the engine's aggregate would sum them. */
function direct(day: TickerDay, expiry: number) {
	const chain = day.chain;
	const start = chain.expiryStart[expiry];
	const end = chain.expiryStart[expiry + 1];
	const spot = day.spot;
	const gexUnit = (100 * spot * spot * 0.01) / 1e6;
	const dexUnit = (100 * spot) / 1e6;
	const gex = new Map<number, number>();
	const callDelta = new Map<number, number>();
	for (let c = start; c < end; c++) {
		const slot = chain.strikeSlot[c];
		const call = chain.isCall[c] === 1;
		const g = (call ? 1 : -1) * day.greeks.gamma[c] * gexUnit;
		gex.set(slot, (gex.get(slot) ?? 0) + g * day.volume[c]);
		if (call)
			callDelta.set(
				slot,
				(callDelta.get(slot) ?? 0) + day.greeks.delta[c] * dexUnit * day.volume[c]
			);
	}
	const slots = [...gex.keys()].sort((a, b) => a - b);
	return {
		strikes: slots.map((s) => chain.strikes[s]),
		// Float32, as a Lookback ring stores a row vector.
		gex: slots.map((s) => Math.fround(gex.get(s) as number)),
		callDelta: slots.map((s) => Math.fround(callDelta.get(s) ?? 0))
	};
}

describe('explicit-expiry priors', () => {
	it('after 40 simulated minutes equal a direct computation at 1, 5 and 30 minutes back', async () => {
		// Start 35 minutes in (trades-only catch-up to 09:35), then run in 5-second steps to 10:10.
		let wall = OPEN + 2100_000;
		// Calls and puts apart, five priors each: the documented profile.
		const live = new LiveEngine(
			SEED,
			['AAPL'],
			new SessionClock({ mode: 'real', wall: () => wall }),
			'documented'
		);
		await live.advance(Infinity);
		while (wall < OPEN + 2400_000) {
			wall += 5000;
			await live.advance(Infinity);
		}
		const T = live.tick;
		expect(T).toBe(2400);
		const day = new TickerDay(SEED, 'AAPL', DATE);
		// An expiry that is neither the zero nor the one set: nobody tracked it before this request.
		const expiry = 2;
		const compact = day.chain.expiries[expiry].replaceAll('-', '');
		const feed = live.latestExpiry('AAPL');
		const gexPayload = feed?.get(`gex_${compact}`)?.value as GexChainValue;
		const deltaPayload = feed?.get(`delta_${compact}`)?.value as GreekProfileValue;
		expect(gexPayload.timestamp).toBe(day.timestampOf(T));

		const at = new Map<number, ReturnType<typeof direct>>();
		for (const lag of [1800, 300, 60, 1, 0]) {
			while (day.tick < T - lag) day.step(day.tick + 1 < T - lag ? 'trades' : 'rings');
			at.set(lag, direct(day, expiry));
		}
		const now = at.get(0) as ReturnType<typeof direct>;
		expect(gexPayload.strikes.map((s) => s[0])).toEqual(now.strikes);
		expect(gexPayload.strikes.map((s) => s[1])).toEqual(now.gex.map(r2));
		const oneMin = at.get(60) as ReturnType<typeof direct>;
		const fiveMin = at.get(300) as ReturnType<typeof direct>;
		const thirty = at.get(1800) as ReturnType<typeof direct>;
		expect(gexPayload.strikes.map((s) => s[3][0])).toEqual(oneMin.gex.map(r2));
		expect(gexPayload.strikes.map((s) => s[3][1])).toEqual(fiveMin.gex.map(r2));
		expect(gexPayload.strikes.map((s) => s[3][4])).toEqual(thirty.gex.map(r2));
		// Populated: the priors moved with the session (trading and spot since then).
		expect(gexPayload.strikes.some((s) => s[3][0] !== s[1])).toBe(true);
		expect(gexPayload.strikes.some((s) => s[3][1] !== s[3][0])).toBe(true);
		expect(gexPayload.strikes.some((s) => s[3][1] !== 0)).toBe(true);
		// Max changes: current / 1 min / 30 min, as the levels module computes them.
		const strikes = Float64Array.from(now.strikes);
		for (const [i, lag] of [
			[0, 1],
			[1, 60],
			[5, 1800]
		]) {
			const change = maxChange(
				{ strikes, values: Float64Array.from(now.gex) },
				{ strikes, values: Float64Array.from((at.get(lag) as typeof now).gex) },
				gexPayload.spot
			);
			expect(gexPayload.max_priors[i], `lag ${lag}`).toEqual(
				change ? [change[0], r3(change[1])] : [0, 0]
			);
		}
		// The greek profile's priors come from the same derivation.
		const mini = deltaPayload.mini_contracts;
		expect(mini.map((m) => m[0])).toEqual(now.strikes);
		expect(mini.map((m) => m[4][0])).toEqual(oneMin.callDelta.map(r2));
		expect(mini.map((m) => m[4][1])).toEqual(fiveMin.callDelta.map(r2));
	}, 120_000);

	it('equal the zero set`s Lookback priors at the strikes both list', async () => {
		const wall = OPEN + 420_000; // 7 minutes in: 10-, 15- and 30-minute priors are the open's
		const live = new LiveEngine(
			SEED,
			['NVDA'],
			new SessionClock({ mode: 'real', wall: () => wall })
		);
		await live.advance(Infinity);
		const zero = live.latest('NVDA')?.payloads.get('classic/gex_zero')?.value as GexChainValue;
		const first = live.latestExpiry('NVDA')?.get('gex_20261120')?.value as GexChainValue;
		expect(first.min_dte).toBe(zero.min_dte);
		const byStrike = new Map(first.strikes.map((s) => [s[0], s[3]]));
		expect(zero.strikes.length).toBeGreaterThan(10);
		for (const [strike, , , priors] of zero.strikes) {
			expect(byStrike.get(strike), `${strike}`).toEqual(priors);
			expect(priors[2]).toBe(priors[4]); // clamped at the open
		}
	});
});

describe('LaggedVolume', () => {
	it('holds every contract`s volume at each lag, clamped at the first second (randomised)', () => {
		const contracts = 7;
		const close = 4000;
		const lagged = new LaggedVolume(contracts);
		const volume = new Float64Array(contracts);
		const history: Float64Array[] = [];
		let x = 12345;
		const rand = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
		for (let t = 0; t <= close; t++) {
			// Bursts of up to 40 prints a second, so the buffer grows and compacts.
			const prints = Math.floor(rand() * (t % 500 < 50 ? 40 : 4));
			for (let k = 0; k < prints; k++) {
				const c = Math.floor(rand() * contracts);
				const size = 1 + Math.floor(rand() * 9);
				volume[c] += size;
				lagged.record(c, size);
			}
			lagged.endTick(t, volume);
			history.push(Float64Array.from(volume));
			if (t % 97 === 0 || t === close)
				CHANGE_LAGS.forEach((lag, i) =>
					expect(lagged.byLag[i], `t ${t} lag ${lag}`).toEqual(history[Math.max(0, t - lag)])
				);
		}
	});
});
