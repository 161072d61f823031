/**
 * Trade arrivals of one ticker-day: how many prints each second (U-shaped through the session),
 * which contract, what size and at what price relative to the quote. Quotes are built around the
 * model price; the aggressor side is only visible to the engine through where the print sits in
 * the quote, which is what it classifies (Lee-Ready).
 */
import { Rng } from './prng';
import { sessionSeconds } from './clock';
import type { ChainDay } from './chainDay';

export interface Quote {
	bid: number;
	ask: number;
}

/** Exchange tick: $0.05 under $3, $0.10 above (penny pilot ignored). */
function tickSize(price: number): number {
	return price < 3 ? 0.05 : 0.1;
}

/** Two-sided quote around the model price; spreads widen in relative terms for cheap options. */
export function quoteAround(modelPrice: number): Quote {
	const t = tickSize(modelPrice);
	const half = Math.max(t / 2, modelPrice * 0.015);
	const bid = Math.max(0, Math.floor((modelPrice - half) / t) * t);
	const ask = Math.max(bid + t, Math.ceil((modelPrice + half) / t) * t);
	return { bid: round2(bid), ask: round2(ask) };
}

function round2(x: number): number {
	return Math.round(x * 100) / 100;
}

export interface Print {
	contract: number;
	size: number;
	price: number;
	quote: Quote;
}

export class TradeTape {
	private readonly rng: Rng;
	private readonly rate: number;
	/** The close tick: the afternoon pick-up builds towards 16:00, or 13:00 on an early close. */
	private readonly closeTick: number;

	constructor(
		seed: number,
		private readonly chain: ChainDay
	) {
		this.rng = new Rng(`${seed}|${chain.ticker}|${chain.date}|trades`);
		// About 16 prints a second for SPX, fewer for smaller names.
		this.rate = 16 * Math.pow(chain.model.size, 0.6);
		this.closeTick = sessionSeconds(chain.date);
	}

	/**
	 * Prints of second `tick`, priced off `modelPrice`; `trend` in [-1, 1] tilts who is aggressive.
	 * `price(c)`, when given, is called to fill `modelPrice[c]` for a contract before it is quoted.
	 */
	next(
		tick: number,
		modelPrice: Float64Array,
		trend: number,
		price?: (c: number) => void
	): Print[] {
		const rng = this.rng;
		const shape =
			0.55 + 1.4 * Math.exp(-tick / 1200) + 0.9 * Math.exp(-(this.closeTick - tick) / 1500);
		const count = rng.poisson(this.rate * shape);
		const prints: Print[] = [];
		const cdf = this.chain.activityCdf;
		for (let k = 0; k < count; k++) {
			const u = rng.next();
			let lo = 0;
			let hi = cdf.length - 1;
			while (lo < hi) {
				const mid = (lo + hi) >> 1;
				if (cdf[mid] < u) lo = mid + 1;
				else hi = mid;
			}
			const contract = lo;
			const block = rng.next() < 0.005;
			const size = block ? 20 + rng.int(180) : 1 + Math.floor(-Math.log(1 - rng.next()) * 4);
			price?.(contract);
			const quote = quoteAround(modelPrice[contract]);
			const isCall = this.chain.isCall[contract] === 1;
			const buyProb = 0.5 + 0.12 * trend * (isCall ? 1 : -1);
			const buyer = rng.next() < buyProb;
			const placement = rng.next();
			let printed: number;
			// Exactly the midpoint (half a cent at most), where Lee-Ready falls back to the tick test.
			if (placement < 0.12) printed = 0.5 * (quote.bid + quote.ask);
			else if (placement < 0.75) printed = buyer ? quote.ask : quote.bid;
			else {
				// Inside the spread, on the aggressor's side of the mid.
				const mid = (quote.bid + quote.ask) / 2;
				const edge = buyer ? quote.ask : quote.bid;
				printed = round2(mid + (edge - mid) * (0.3 + 0.6 * rng.next()));
			}
			if (printed <= 0) printed = quote.ask;
			prints.push({ contract, size, price: printed, quote });
		}
		return prints;
	}
}
