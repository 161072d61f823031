import { describe, expect, it } from 'vitest';
import {
	ClassifiedFlows,
	classifyTrade,
	emo,
	leeReady,
	newTickState,
	quoteRule,
	tickTest,
	updateTick
} from './classify';

describe('trade classification', () => {
	it('quote rule', () => {
		expect(quoteRule(1.06, 1.0, 1.1)).toBe(1);
		expect(quoteRule(1.02, 1.0, 1.1)).toBe(-1);
		expect(quoteRule(1.0, 0.9, 1.1)).toBe(0);
	});
	it('tick test carries the last non-zero tick through repeats', () => {
		const s = newTickState();
		expect(tickTest(1, s)).toBe(0);
		updateTick(1, s);
		expect(tickTest(1.1, s)).toBe(1);
		updateTick(1.1, s);
		expect(tickTest(1.1, s)).toBe(1); // zero-uptick
		updateTick(1.1, s);
		expect(tickTest(1.0, s)).toBe(-1);
		updateTick(1.0, s);
		expect(tickTest(1.0, s)).toBe(-1); // zero-downtick
	});
	it('Lee-Ready uses the tick test only at the midpoint; EMO only away from the quotes', () => {
		const s = newTickState();
		updateTick(2.0, s);
		updateTick(1.9, s); // last tick down
		expect(leeReady(2.0, 1.9, 2.1, s)).toBe(1); // tick up from 1.9
		expect(leeReady(1.95, 1.9, 2.1, s)).toBe(-1); // below mid
		expect(emo(2.1, 1.9, 2.1, s)).toBe(1);
		expect(emo(1.9, 1.9, 2.1, s)).toBe(-1);
		expect(emo(2.05, 1.9, 2.1, s)).toBe(1); // inside the quotes: tick test, up from 1.9
		expect(emo(1.85, 1.9, 2.1, s)).toBe(-1);
		const t = newTickState();
		expect(classifyTrade('tick', 3, 0, 0, t)).toBe(0);
		expect(classifyTrade('tick', 3.5, 0, 0, t)).toBe(1);
		expect(classifyTrade('quote', 3.5, 3, 5, t)).toBe(-1);
		expect(t.lastPrice).toBe(3.5);
	});
});

describe('ClassifiedFlows', () => {
	it('accumulates DEX, convexity and GEX flows from signed sizes', () => {
		const f = new ClassifiedFlows(2, 100);
		f.record(0, 1, 10, true, 0.5, 0.002, 5000); // buy 10 calls
		f.record(1, 1, 4, false, -0.3, 0.001, 5000); // buy 4 puts
		f.record(0, -1, 2, true, 0.5, 0.002, 5000); // sell 2 calls
		f.record(0, 0, 50, true, 0.5, 0.002, 5000); // unclassified: ignored
		expect(f.dex[0]).toBeCloseTo(8 * 0.5 * 100 * 5000, 6);
		expect(f.dex[1]).toBeCloseTo(4 * -0.3 * 100 * 5000, 6);
		const unit = (g: number) => g * 100 * 5000 * 5000 * 0.01;
		expect(f.convexity[0]).toBeCloseTo(8 * unit(0.002), 6);
		expect(f.convexity[1]).toBeCloseTo(4 * unit(0.001), 6);
		expect(f.gex[1]).toBeCloseTo(-4 * unit(0.001), 6);
		expect(f.totalGex).toBeCloseTo(8 * unit(0.002) - 4 * unit(0.001), 6);
		expect(f.totalDex).toBeCloseTo(f.dex[0] + f.dex[1], 6);
		expect(f.buyVolume[0]).toBe(10);
		expect(f.sellVolume[0]).toBe(2);
		f.reset();
		expect(f.totalConvexity).toBe(0);
		expect(f.dex[0]).toBe(0);
	});
	it('trade() classifies with the contract tick state and records', () => {
		const f = new ClassifiedFlows(1);
		expect(f.trade(0, 'lee-ready', 2.0, 1.9, 2.1, 5, true, 0.5, 0.01, 100)).toBe(0);
		expect(f.trade(0, 'lee-ready', 2.05, 1.9, 2.1, 5, true, 0.5, 0.01, 100)).toBe(1);
		expect(f.dex[0]).toBeCloseTo(5 * 0.5 * 100 * 100, 9);
	});
});
