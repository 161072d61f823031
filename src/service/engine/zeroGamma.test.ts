/**
 * One zero-gamma kernel: the engine's zero gamma (the live loop and the history generator share
 * TickerDay; the explicit-expiry payloads use the same call) is the analytics engine's
 * GammaKernel on the day's own arrays, bit for bit, and that is the root nearest spot of the
 * brute-force profile (within 1e-6) on the engine's simulated chains.
 *
 * The seconds are ones where the engine's former fixed-step walk (engine/kernels.ts) published
 * something else: a root where the by-volume profile is identically zero at the open (few
 * prints), a farther root than the nearest, a cent off from its 1e-6 x spot tolerance; and
 * minutes before a normal and an early close, when 0DTE gamma is a spike.
 */
import { describe, expect, it } from 'vitest';
import { GammaKernel, nearestZeroGamma } from '../../lib/analytics/gammaKernel';
import { bruteNearest } from '../../lib/analytics/gammaKernel.test-support';
import { gexChainValue, majorsValue } from './categoryPayloads';
import { expiryGexValue } from './expiryPayloads';
import { freezeExpiryState } from './expiryState';
import { advanceDay } from './live';
import { r2 } from './rounding';
import { TickerDay, type SubsetName } from './tickerDay';

const SEED = 42;
/** Brute-force grid points per narrowest sigma sqrt T. */
const FINE = 16;

function rangeOf(start: number, end: number): Int32Array {
	return Int32Array.from({ length: end - start }, (_, i) => start + i);
}

/** The brute-force answer the engine promises: by volume, else by OI, else none. */
function bruteZeroGamma(day: TickerDay, selection: Int32Array) {
	const minWidth = new GammaKernel().update(day.arrays, { selection }).minWidth;
	const vol = bruteNearest(day.arrays, 'vol', minWidth, FINE, selection);
	const oi = vol === null ? bruteNearest(day.arrays, 'oi', minWidth, FINE, selection) : null;
	return { vol, oi };
}

function expectNear(got: number | null, want: number | null): void {
	if (want === null) expect(got).toBeNull();
	else expect(Math.abs((got ?? Infinity) - want)).toBeLessThan(1e-6);
}

const CASES: [string, string, number[], SubsetName[]][] = [
	// Open: bogus by-volume roots in a zero profile (SPX zero set, NDX next expiry), cent (631).
	['SPX', '2026-11-18', [9, 631], ['full', 'zero', 'one']],
	['NDX', '2026-11-18', [2], ['full', 'one']],
	// The nearer of two roots on either side of spot (the walk looked up first).
	['VIX', '2026-11-18', [950], ['full', 'zero', 'one']],
	// 20 s before the close: 0DTE sigma sqrt T at its floor.
	['SPX', '2026-11-18', [23_380], ['zero', 'one']],
	// Early close (13:00 ET): ten minutes before it.
	['SPX', '2026-11-27', [12_000], ['full', 'zero']]
];

describe.each(CASES)('%s %s', (ticker, date, ticks, sets) => {
	const day = new TickerDay(SEED, ticker, date);
	it.each(ticks)(
		'tick %i: the analytics kernel, exact, in every payload',
		(tick) => {
			advanceDay(day, tick);
			expect(day.tick).toBe(tick);
			for (const name of sets) {
				const subset = day.subsets[name];
				const selection = rangeOf(subset.start, subset.end);
				const engine = day.zeroGamma(subset);
				// The same kernel, not a second implementation: bit for bit.
				const kernel = nearestZeroGamma(day.arrays, { selection });
				expect(engine.vol, name).toBe(kernel.vol);
				expect(engine.oi, name).toBe(engine.vol === null ? kernel.oi : null);
				const brute = bruteZeroGamma(day, selection);
				expectNear(engine.vol, brute.vol);
				expectNear(engine.oi, brute.oi);
				const level = r2(engine.vol ?? engine.oi ?? 0);
				expect(gexChainValue(day, subset).zero_gamma).toBe(level);
				expect(majorsValue(day, subset).zero_gamma).toBe(level);
			}
		},
		120_000
	);
});

describe('explicit-expiry payloads', () => {
	it('use the same kernel on the frozen second', () => {
		const day = new TickerDay(SEED, 'SPX', '2026-11-18');
		advanceDay(day, 631);
		const state = freezeExpiryState(day);
		const e = day.chain.expiryStart;
		for (const expiry of [0, 1, 3]) {
			const selection = rangeOf(e[expiry], e[expiry + 1]);
			const kernel = nearestZeroGamma(day.arrays, { selection });
			const brute = bruteZeroGamma(day, selection);
			const root = brute.vol ?? brute.oi;
			const want = kernel.vol ?? kernel.oi;
			expect(Math.abs((want ?? 0) - (root ?? 0))).toBeLessThan(1e-6);
			expect(expiryGexValue(state, expiry).zero_gamma).toBe(want === null ? 0 : r2(want));
		}
	}, 120_000);
});
