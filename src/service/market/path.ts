/**
 * Underlying price paths. Each session's close-to-close return is drawn from a stream keyed by
 * (seed, ticker, date) alone, and the level is a slowly mean-reverting sum of the last 400
 * sessions' returns, so any day's close is computable without replaying history. Within the day
 * the path is a stochastic-volatility random walk with jumps, bridged to that close, sampled
 * every second from 09:30:00 to 16:00:00 (23,401 points), or to 13:00:00 on an early-close day
 * (12,601 points: the same per-second volatility over a shorter day, the closing pick-up at 13:00).
 */
import { SESSION_SECONDS, previousTradingDay, sessionSeconds } from './clock';
import { Rng } from './prng';
import { tickerModel, type TickerModel } from './universe';

const LOOKBACK_SESSIONS = 400;

interface DayShock {
	/** Close-to-close log return. */
	ret: number;
	/** That day's realised-vol multiplier. */
	volMult: number;
	/** Fraction of the return that happens overnight (gap at the open). */
	gapShare: number;
}

const shockCache = new Map<string, DayShock>();

function ownShock(seed: number, ticker: string, date: string, dailyVol: number): DayShock {
	const key = `${seed}|${ticker}|${date}|day`;
	const cached = shockCache.get(key);
	if (cached) return cached;
	const rng = new Rng(key);
	const volMult = Math.exp(0.28 * rng.normal() - 0.04);
	let ret = dailyVol * volMult * rng.normal();
	// Occasional gap-sized moves: fat tails on the daily scale.
	if (rng.next() < 0.03) ret += dailyVol * 2.5 * rng.normal();
	const shock = { ret, volMult, gapShare: 0.15 + 0.3 * rng.next() };
	if (shockCache.size > 200_000) shockCache.clear();
	shockCache.set(key, shock);
	return shock;
}

function factorOf(model: TickerModel): TickerModel | undefined {
	return model.factor === 'own' ? undefined : tickerModel(model.factor);
}

function idioVol(model: TickerModel, factor: TickerModel | undefined): number {
	if (!factor) return model.vol;
	const systematic = model.beta * factor.vol;
	return Math.sqrt(Math.max(model.vol * model.vol - systematic * systematic, 0.02 * 0.02));
}

/** Daily shock of a ticker, including its factor's share. */
function dayShock(seed: number, model: TickerModel, date: string): DayShock {
	const factor = factorOf(model);
	const own = ownShock(seed, model.ticker, date, idioVol(model, factor) / Math.sqrt(252));
	if (!factor) return own;
	// Followers (VIX and UVXY with a negative beta) share the factor's daily move and vol regime.
	const f = dayShock(seed, factor, date);
	return { ret: model.beta * f.ret + own.ret, volMult: f.volMult, gapShare: f.gapShare };
}

const closeCache = new Map<string, number>();

/** Official close of `ticker` on session `date`. */
export function sessionClose(seed: number, ticker: string, date: string): number {
	const key = `${seed}|${ticker}|${date}`;
	const cached = closeCache.get(key);
	if (cached !== undefined) return cached;
	const model = tickerModel(ticker);
	// Volatility products mean-revert within weeks; everything else drifts for months.
	const kappa = model.beta < 0 ? 0.06 : 0.004;
	let x = 0;
	let weight = 1;
	let d = date;
	for (let k = 0; k < LOOKBACK_SESSIONS; k++) {
		x += weight * dayShock(seed, model, d).ret;
		weight *= 1 - kappa;
		d = previousTradingDay(d);
	}
	const close = roundPrice(model.anchorSpot * Math.exp(x));
	if (closeCache.size > 100_000) closeCache.clear();
	closeCache.set(key, close);
	return close;
}

export function roundPrice(x: number): number {
	return Math.round(x * 100) / 100;
}

/** The raw (un-bridged) intraday noise of a ticker: stochastic vol, U-shaped intensity, jumps. */
function intradayNoise(
	seed: number,
	model: TickerModel,
	date: string,
	volMult: number
): Float64Array {
	const rng = new Rng(`${seed}|${model.ticker}|${date}|intraday`);
	const ticks = sessionSeconds(date) + 1;
	const out = new Float64Array(ticks);
	const factor = factorOf(model);
	const base = (idioVol(model, factor) * volMult) / Math.sqrt(252 * SESSION_SECONDS);
	let h = 0.3 * rng.normal();
	let x = 0;
	for (let i = 1; i < ticks; i++) {
		h += -h / 3600 + 0.012 * rng.normal();
		const shape = 0.8 + 0.9 * Math.exp(-i / 1500) + 0.5 * Math.exp(-(ticks - i) / 1800);
		let step = base * shape * Math.exp(h) * rng.normal();
		if (rng.next() < 2 / SESSION_SECONDS) step += base * 60 * rng.normal();
		x += step;
		out[i] = x;
	}
	return out;
}

const pathCache = new Map<string, Float64Array>();

/** Log-path of the day relative to the previous close (index 0 = 09:30:00). */
function logPath(seed: number, model: TickerModel, date: string): Float64Array {
	const key = `${seed}|${model.ticker}|${date}`;
	const cached = pathCache.get(key);
	if (cached) return cached;
	const shock = dayShock(seed, model, date);
	const prev = sessionClose(seed, model.ticker, previousTradingDay(date));
	const close = sessionClose(seed, model.ticker, date);
	const total = Math.log(close / prev);
	const gap = total * shock.gapShare;
	const own = intradayNoise(seed, model, date, shock.volMult);
	const ticks = own.length;
	const factor = factorOf(model);
	const out = new Float64Array(ticks);
	const n = ticks - 1;
	const ownEnd = own[n];
	let f: Float64Array | undefined;
	let beta = 0;
	if (factor) {
		// Follow the factor's own intraday moves (its bridged path minus its drift line).
		const fp = logPath(seed, factor, date);
		const fStart = fp[0];
		const fEnd = fp[n];
		f = new Float64Array(ticks);
		for (let i = 0; i < ticks; i++) f[i] = fp[i] - fStart - ((fEnd - fStart) * i) / n;
		beta = model.beta;
	}
	for (let i = 0; i < ticks; i++) {
		const line = gap + ((total - gap) * i) / n;
		const bridge = own[i] - (ownEnd * i) / n;
		out[i] = line + bridge + (f ? beta * f[i] : 0);
	}
	if (pathCache.size > 400) pathCache.clear();
	pathCache.set(key, out);
	return out;
}

const spotCache = new Map<string, Float64Array>();

/**
 * Forgets the intermediate caches (each ticker's log path and the daily shocks behind the closes)
 * once the live days are built: they only speed up building a day, and a live service held them
 * for the rest of the session (for a 107-chain universe, 10-20 MB of log paths and 8 MB of
 * shocks). The spot paths and closes stay cached: the live days and futures views read them.
 * Values are unchanged: dropped entries are recomputed from the same streams when asked again.
 */
export function dropBuildCaches(): void {
	pathCache.clear();
	shockCache.clear();
}

/** Entries in the caches dropBuildCaches forgets (for its test). */
export function buildCacheSizes(): { paths: number; shocks: number } {
	return { paths: pathCache.size, shocks: shockCache.size };
}

/** Spot at every second of the session (rounded to cents). Shared: callers must not write. */
export function sessionPath(seed: number, ticker: string, date: string): Float64Array {
	const key = `${seed}|${ticker}|${date}`;
	const cached = spotCache.get(key);
	if (cached) return cached;
	const model = tickerModel(ticker);
	const prev = sessionClose(seed, ticker, previousTradingDay(date));
	const log = logPath(seed, model, date);
	const out = new Float64Array(log.length);
	for (let i = 0; i < log.length; i++) out[i] = roundPrice(prev * Math.exp(log[i]));
	if (spotCache.size > 400) spotCache.clear();
	spotCache.set(key, out);
	return out;
}
