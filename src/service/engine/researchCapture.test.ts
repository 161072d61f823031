/**
 * A research capture serves the quotes of its second, as objects built on request: the same
 * contracts, in the same order, with the same values as the chain's state at that second, and
 * unchanged by the seconds the live day steps through after it.
 */
import { describe, expect, it } from 'vitest';
import { quoteAround } from '../market/trades';
import { RISK_FREE_RATE } from '../market/universe';
import { advanceDay } from './live';
import { ResearchCapture } from './researchCapture';
import { TickerDay } from './tickerDay';

describe('ResearchCapture', () => {
	it('serves the contracts of its second, unchanged by later steps', () => {
		const day = new TickerDay(3, 'AAPL', '2026-11-18');
		advanceDay(day, 900);
		const chain = day.chain;
		const nowMs = day.openMs + day.tick * 1000;
		// The chain's state at the mark, written out field by field.
		const expected = {
			timestamp: day.timestampOf(day.tick),
			ticker: 'AAPL',
			spot: day.spot,
			rate: RISK_FREE_RATE,
			dividend_yield: chain.model.dividendYield,
			contracts: Array.from({ length: chain.n }, (_, c) => ({
				expiry: chain.expiries[chain.expiry[c]],
				expiry_years: Math.max(0, (chain.expiryMs[chain.expiry[c]] - nowMs) / (365 * 86_400_000)),
				strike: chain.strike[c],
				right: chain.isCall[c] === 1 ? 'C' : 'P',
				...quoteAround(day.greeks.price[c]),
				open_interest: chain.openInterest[c],
				volume: day.volume[c]
			}))
		};
		const capture = new ResearchCapture(
			chain,
			day.timestampOf(day.tick),
			nowMs,
			'AAPL',
			day.spot,
			day.greeks.price,
			day.volume
		);
		expect(capture.toChain()).toEqual(expected);
		expect(JSON.stringify(capture.toChain())).toBe(JSON.stringify(expected));
		// The day moves on (prices and volumes change in place): the capture does not.
		advanceDay(day, 960);
		expect(day.volume).not.toEqual(Float64Array.from(expected.contracts.map((c) => c.volume)));
		expect(JSON.stringify(capture.toChain())).toBe(JSON.stringify(expected));
	}, 30_000);
});
