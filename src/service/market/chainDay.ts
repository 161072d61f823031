/**
 * The option chain of one ticker for one session: listed expiries, strike grid and the open
 * interest published at 08:30 ET, all fixed for the day and drawn from (seed, ticker, date).
 * Stored as struct-of-arrays so the engine walks flat typed arrays every second.
 */
import { addDays, daysBetween, previousTradingDay, sessionCloseMs, sessionOpenMs } from './clock';
import { isMonthlyExpiry, listExpiries } from './calendar';
import { sessionClose } from './path';
import { Rng, hashUniform } from './prng';
import { tickerModel, type TickerModel } from './universe';

export interface ChainDay {
	ticker: string;
	date: string;
	model: TickerModel;
	/** Previous session's close: the grid is centred on it. */
	refSpot: number;
	expiries: string[];
	/** Settlement of each expiry, unix ms: its session's close, 16:00 ET or 13:00 on an early close. */
	expiryMs: Float64Array;
	/** Extra total variance of an event (earnings) inside each expiry. */
	expiryEventVariance: Float64Array;
	/** Number of contracts. */
	n: number;
	expiry: Int16Array;
	strike: Float64Array;
	/** 1 = call, 0 = put. */
	isCall: Uint8Array;
	openInterest: Float64Array;
	/** Sorted distinct strikes of the whole chain; `strikeSlot[c]` indexes into it. */
	strikes: Float64Array;
	strikeSlot: Int32Array;
	/** Cumulative trade-arrival weights over contracts (for sampling which contract trades). */
	activityCdf: Float64Array;
	/** Contracts of expiry e are `expiryStart[e]` .. `expiryStart[e + 1] - 1`. */
	expiryStart: Int32Array;
}

/** Strikes of one expiry: fine step near the money, coarser in the wings. */
function strikeGrid(model: TickerModel, ref: number, years: number): number[] {
	const step = model.kind === 'stock' ? stockStep(ref) : model.strikeStep;
	const isIndex = model.kind === 'index';
	const sd = model.vol * Math.sqrt(Math.max(years, 1 / 365));
	// Listed ranges scale with the ticker's vol: a VIX chain spans far more of its level than SPX.
	const v = model.vol;
	const nearFrac = Math.min(Math.max(1.2 * sd, 0.12 * v), 0.17 * v);
	const wideFrac = Math.min(Math.max(3.2 * sd, 0.5 * v), 1.3 * v, 0.9);
	// Keep the near region to about 60 strikes and the whole expiry to about 120.
	let fine = step;
	while ((2 * nearFrac * ref) / fine > 60) fine *= 2;
	// Stocks list one step across the range; indexes switch to a coarse step in the wings.
	let coarse = isIndex ? fine * 5 : fine;
	while ((2 * wideFrac * ref) / coarse > 60) coarse *= 2;
	const out = new Set<number>();
	const lo = ref * (1 - wideFrac);
	const hi = ref * (1 + wideFrac);
	for (let k = Math.ceil(lo / coarse) * coarse; k <= hi; k += coarse) out.add(round(k));
	const nlo = ref * (1 - nearFrac);
	const nhi = ref * (1 + nearFrac);
	for (let k = Math.ceil(nlo / fine) * fine; k <= nhi; k += fine) out.add(round(k));
	return [...out].filter((k) => k > 0).sort((a, b) => a - b);
}

/** Listed strike step of a stock at its current price. */
function stockStep(spot: number): number {
	if (spot < 25) return 0.5;
	if (spot < 100) return 1;
	if (spot < 250) return 2.5;
	if (spot < 1000) return 5;
	return 10;
}

function round(x: number): number {
	return Math.round(x * 100) / 100;
}

/** Round strikes attract open interest: 100s over 50s over 25s over 10s. */
function roundness(strike: number, step: number): number {
	const units = Math.round(strike / step);
	if (units % 20 === 0) return 3;
	if (units % 10 === 0) return 2.2;
	if (units % 5 === 0) return 1.5;
	if (units % 2 === 0) return 1.15;
	return 1;
}

/** Quarterly earnings-like event date of a stock near `date` (deterministic in the ticker). */
function eventDates(ticker: string, date: string): string[] {
	const phase = Math.floor(hashUniform(`event|${ticker}`) * 91);
	const epoch = '2024-01-01';
	const since = daysBetween(epoch, date);
	const first = since - ((since - phase) % 91) - 91;
	return [0, 1, 2, 3].map((k) => addDays(epoch, first + 91 * k));
}

/** OI of a contract at the day's open, before noise. */
const OI_SCALE = 1200;

export function buildChain(seed: number, ticker: string, date: string): ChainDay {
	const model = tickerModel(ticker);
	const refSpot = sessionClose(seed, ticker, previousTradingDay(date));
	const expiries = listExpiries(model.calendar, date);
	const rng = new Rng(`${seed}|${ticker}|${date}|chain`);
	const events = model.eventVariance > 0 ? eventDates(ticker, date) : [];
	const openMs = sessionOpenMs(date);

	const cExpiry: number[] = [];
	const cStrike: number[] = [];
	const cCall: number[] = [];
	const cOi: number[] = [];
	const cAct: number[] = [];
	const expiryMs = new Float64Array(expiries.length);
	const eventVar = new Float64Array(expiries.length);
	const expiryStart = new Int32Array(expiries.length + 1);

	expiries.forEach((exp, e) => {
		expiryStart[e] = cExpiry.length;
		expiryMs[e] = sessionCloseMs(exp);
		const years = Math.max((expiryMs[e] - openMs) / (365 * 86_400_000), 1 / (365 * 24));
		for (const ev of events) if (ev >= date && ev <= exp) eventVar[e] += model.eventVariance;
		const monthly = isMonthlyExpiry(model.calendar, exp);
		const dte = daysBetween(date, exp);
		const expiryWeight = ((monthly ? 2.4 : 1) * (dte === 0 ? 0.55 : 1)) / (1 + dte / 45);
		const sd = model.vol * Math.sqrt(years);
		const width = Math.max(sd * 1.6, 0.01);
		for (const k of strikeGrid(model, refSpot, years)) {
			const m = Math.log(k / refSpot);
			const bell = Math.exp(-0.5 * (m / width) ** 2);
			const rnd = roundness(k, model.strikeStep);
			for (const call of [1, 0]) {
				const otm = call ? m > 0 : m < 0;
				// Index put OI sits in the downside wing (hedges); calls cluster just above spot.
				const side = call
					? otm
						? 1.15
						: 0.35
					: otm
						? 0.7 * (1 + (model.kind === 'index' ? 1.5 : 0.5) * Math.min(-m / width, 2))
						: 0.3;
				const noise = Math.exp(0.45 * rng.normal());
				const oi = Math.round(
					OI_SCALE * model.size * expiryWeight * (0.04 + bell) * rnd * side * noise
				);
				cExpiry.push(e);
				cStrike.push(k);
				cCall.push(call);
				cOi.push(Math.max(0, oi));
				// Trading concentrates at the money and in the front expiries (0DTE for indexes).
				const front = dte === 0 ? (model.calendar === 'daily' ? 8 : 3) : 1 / (1 + dte / 7);
				cAct.push(front * (0.01 + Math.exp(-0.5 * (m / (width * 0.6)) ** 2)) * (otm ? 1 : 0.5));
			}
		}
	});
	expiryStart[expiries.length] = cExpiry.length;

	const n = cExpiry.length;
	const strikes = Float64Array.from(new Set(cStrike)).sort();
	const slotOf = new Map<number, number>();
	strikes.forEach((k, i) => slotOf.set(k, i));
	const strikeSlot = new Int32Array(n);
	for (let c = 0; c < n; c++) strikeSlot[c] = slotOf.get(cStrike[c]) as number;
	const activityCdf = new Float64Array(n);
	let acc = 0;
	for (let c = 0; c < n; c++) {
		acc += cAct[c];
		activityCdf[c] = acc;
	}
	for (let c = 0; c < n; c++) activityCdf[c] /= acc;

	return {
		ticker,
		date,
		model,
		refSpot,
		expiries,
		expiryMs,
		expiryEventVariance: eventVar,
		n,
		expiry: Int16Array.from(cExpiry),
		strike: Float64Array.from(cStrike),
		isCall: Uint8Array.from(cCall),
		openInterest: Float64Array.from(cOi),
		strikes,
		strikeSlot,
		activityCdf,
		expiryStart
	};
}
