/**
 * A MarketSource whose ticks the test fires itself, for the hub lifecycle tests: delivery must
 * be deterministic (one tick -> one frame per group), which a clock-driven market cannot give.
 * Payload values have the shapes of the real REST payloads (classic chain, greek profile,
 * orderflow, volume profile), drawn from a seeded generator.
 */
import type {
	CanonicalCategory,
	Greek,
	MarketSource,
	PackageName,
	Payload,
	TickEvent
} from '../../src/service/source';
import {
	tickersResponse,
	quantTickersResponse,
	isStreamTicker
} from '../../src/lib/contract/tickers';

function rng(seed: number) {
	let s = seed >>> 0;
	return () => {
		s = (s + 0x6d2b79f5) >>> 0;
		let t = s;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;

function payload<T>(timestamp: number, value: T): Payload<T> {
	return { timestamp, value, body: Buffer.from(JSON.stringify(value)) };
}

export function gexValue(ticker: string, timestamp: number, spot: number, r: () => number) {
	const strikes: [number, number, number, number[]][] = [];
	const base = Math.round(spot / 5) * 5;
	for (let i = -10; i <= 10; i++) {
		const v = round((r() - 0.5) * 2000, 3);
		strikes.push([
			base + i * 5,
			v,
			round((r() - 0.5) * 800, 3),
			[0, 1, 2, 3, 4].map(() => round(v * (0.9 + r() * 0.2), 3))
		]);
	}
	return {
		timestamp,
		ticker,
		min_dte: 0,
		sec_min_dte: 1,
		spot,
		zero_gamma: round(spot - 20 + r() * 40, 2),
		major_pos_vol: base + 10,
		major_pos_oi: base + 50,
		major_neg_vol: base - 10,
		major_neg_oi: base - 50,
		strikes,
		sum_gex_vol: round((r() - 0.5) * 1e6, 3),
		sum_gex_oi: round((r() - 0.5) * 1e5, 3),
		delta_risk_reversal: round(r() * 0.3, 3),
		max_priors: [0, 1, 2, 3, 4, 5].map(() => [
			base + 5 * Math.round((r() - 0.5) * 10),
			round((r() - 0.5) * 100, 3)
		])
	};
}

export function greekValue(ticker: string, timestamp: number, spot: number, r: () => number) {
	const base = Math.round(spot / 5) * 5;
	const mini_contracts: unknown[] = [];
	for (let i = -8; i <= 8; i++) {
		const c = round((r() - 0.5) * 500, 2);
		const p = Math.round((r() - 0.5) * 500);
		mini_contracts.push([
			base + i * 5,
			round(0.1 + r() * 0.3, 3),
			round(0.1 + r() * 0.3, 3),
			c,
			[c, c, c, c, c],
			p,
			[p, p, p, p, p]
		]);
	}
	return {
		timestamp,
		ticker,
		spot,
		min_dte: 0,
		sec_min_dte: 1,
		major_positive: base + 10,
		major_negative: base - 10,
		major_long_gamma: base + 15,
		major_short_gamma: base - 15,
		mini_contracts
	};
}

export function orderflowValue(ticker: string, timestamp: number, spot: number, r: () => number) {
	const v = () => round((r() - 0.5) * 1000, 2);
	const base = Math.round(spot);
	return {
		timestamp, ticker, spot,
		z_mlgamma: base + 5, z_msgamma: base - 5, o_mlgamma: base + 10, o_msgamma: base - 10,
		zero_mcall: base + 20, zero_mput: base - 20, one_mcall: base + 25, one_mput: base - 25,
		zcvr: v(), ocvr: v(), zgr: v(), ogr: v(), zvanna: v(), ovanna: v(), zcharm: v(), ocharm: v(),
		agg_dex: v(), one_agg_dex: v(), agg_call_dex: v(), one_agg_call_dex: v(), agg_put_dex: v(),
		one_agg_put_dex: v(), net_dex: v(), one_net_dex: v(), net_call_dex: v(), one_net_call_dex: v(),
		net_put_dex: v(), one_net_put_dex: v(), dexoflow: v(), gexoflow: v(), cvroflow: v(),
		one_dexoflow: v(), one_gexoflow: v(), one_cvroflow: v()
	}; // prettier-ignore
}

const GREEKS: Greek[] = ['delta', 'gamma', 'vanna', 'charm'];

export class ManualMarket implements MarketSource {
	private listeners = new Set<(tick: TickEvent) => void>();
	private last: TickEvent | undefined;
	/** Unix seconds of the next tick. */
	timestamp = Date.UTC(2026, 10, 20, 15, 0, 0) / 1000;
	readonly expiryDates = ['2026-11-20', '2026-11-23', '2026-12-18'];

	constructor(readonly tickers_: string[] = ['SPX', 'ES_SPX', 'SPY', 'AAPL', 'XSP']) {}

	/** Computes and publishes one second; explicit-expiry profiles when `withExpiries`. */
	tick(withExpiries = this.timestamp % 5 === 0): TickEvent {
		const timestamp = this.timestamp++;
		const tickers: TickEvent['tickers'] = new Map();
		for (const [i, ticker] of this.tickers_.entries()) {
			const r = rng(timestamp * 131 + i);
			const spot = round(100 + i * 1000 + r() * 10, 2);
			const payloads = new Map<string, Payload>();
			for (const cat of ['gex_full', 'gex_zero', 'gex_one']) {
				payloads.set(`classic/${cat}`, payload(timestamp, gexValue(ticker, timestamp, spot, r)));
				payloads.set(`state/${cat}`, payload(timestamp, gexValue(ticker, timestamp, spot, r)));
			}
			for (const g of GREEKS) {
				for (const e of ['zero', 'one']) {
					payloads.set(`state/${g}_${e}`, payload(timestamp, greekValue(ticker, timestamp, spot, r)));
				}
			}
			payloads.set('orderflow/orderflow', payload(timestamp, orderflowValue(ticker, timestamp, spot, r)));
			const entry: { spot: number; payloads: Map<string, Payload>; expiryPayloads?: Map<string, Payload> } = { spot, payloads };
			if (withExpiries) {
				entry.expiryPayloads = new Map();
				for (const g of GREEKS) {
					for (const d of this.expiryDates) {
						entry.expiryPayloads.set(`${g}_${d.replaceAll('-', '')}`, payload(timestamp, greekValue(ticker, timestamp, spot, r)));
					}
				}
			}
			tickers.set(ticker, entry);
		}
		const tick: TickEvent = { timestamp, tickers };
		this.last = tick;
		for (const l of this.listeners) l(tick);
		return tick;
	} // prettier-ignore

	now(): Date {
		return new Date(this.timestamp * 1000);
	}
	isOpen(): boolean {
		return true;
	}
	tickers() {
		return tickersResponse();
	}
	quantTickers() {
		return quantTickersResponse();
	}
	hasTicker(ticker: string): boolean {
		return isStreamTicker(ticker);
	}
	snapshot(ticker: string, pkg: PackageName, category: CanonicalCategory): Payload | undefined {
		return this.last?.tickers.get(ticker)?.payloads.get(`${pkg}/${category}`);
	}
	majors(): Payload | undefined {
		return undefined;
	}
	maxchange(): Payload | undefined {
		return undefined;
	}
	expiries(): string[] {
		return [...this.expiryDates];
	}
	expirySnapshot(): Payload | undefined {
		return undefined;
	}
	futuresConversion() {
		return undefined;
	}
	history(): Promise<Buffer> {
		return Promise.reject(new Error('no history in the manual market'));
	}
	lastCompletedSession(): string {
		return '2026-11-19';
	}
	researchChain() {
		return undefined;
	}
	onTick(listener: (tick: TickEvent) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}
}
