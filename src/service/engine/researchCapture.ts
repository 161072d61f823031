/**
 * The research feed's quotes of a chain at a 15-minute mark, kept compact: the live loop captures
 * every chain four times an hour and serves the latest capture until the next one, but the research
 * endpoint is asked rarely. Kept as objects (one per contract, eight fields, five of them doubles),
 * the 107 chains' captures were some 150,000 objects and 500,000 heap numbers, about 17 MB of the
 * idle service's heap that every major GC walked. A capture keeps two typed arrays (the model
 * prices and session volumes of that second) and the chain it belongs to; the contracts are built
 * on request with the same functions and in the same order as before, so every answer is the same.
 */
import type { ChainDay } from '../market/chainDay';
import { quoteAround } from '../market/trades';
import { RISK_FREE_RATE } from '../market/universe';
import type { ResearchChain } from '../source';

const YEAR_MS = 365 * 86_400_000;

export class ResearchCapture {
	private readonly price: Float64Array;
	private readonly volume: Float64Array;

	constructor(
		private readonly chain: ChainDay,
		/** The captured second: its timestamp (s), its instant (ms) and spot. */
		private readonly timestamp: number,
		private readonly nowMs: number,
		private readonly ticker: string,
		private readonly spot: number,
		price: Float64Array,
		volume: Float64Array
	) {
		this.price = Float64Array.from(price.subarray(0, chain.n));
		this.volume = Float64Array.from(volume.subarray(0, chain.n));
	}

	/** The chain as the research endpoint serves it. */
	toChain(): ResearchChain {
		const chain = this.chain;
		const contracts: ResearchChain['contracts'] = [];
		for (let c = 0; c < chain.n; c++) {
			const quote = quoteAround(this.price[c]);
			contracts.push({
				expiry: chain.expiries[chain.expiry[c]],
				expiry_years: Math.max(0, (chain.expiryMs[chain.expiry[c]] - this.nowMs) / YEAR_MS),
				strike: chain.strike[c],
				right: chain.isCall[c] === 1 ? 'C' : 'P',
				bid: quote.bid,
				ask: quote.ask,
				open_interest: chain.openInterest[c],
				volume: this.volume[c]
			});
		}
		return {
			timestamp: this.timestamp,
			ticker: this.ticker,
			spot: this.spot,
			rate: RISK_FREE_RATE,
			dividend_yield: chain.model.dividendYield,
			contracts
		};
	}
}
