/**
 * Per-contract session volume as it stood 1, 60, 300, 600, 900 and 1800 seconds ago (the
 * CHANGE_LAGS, clamped at the session's first second like a Lookback), for the whole chain.
 *
 * Why: the explicit-expiry payloads (gex_YYYYMMDD, expiryPayloads.ts) need priors and max changes
 * for whichever expiry a client asks for, from its first frame. Tracking a per-strike Lookback for
 * every listed expiry would cost 30 minutes of rows for expiries nobody asked for; starting one
 * on first request would leave the priors wrong for 30 minutes. Instead the engine keeps this one
 * per-contract history (six volume arrays and the last 30 minutes of prints, a few tens of
 * thousands for SPX), and a payload recomputes the greeks of just its expiry at the lagged
 * seconds (the model is deterministic in the second, TickerDay.greeksAt): exact values at once,
 * memory independent of how many expiries are listed or requested.
 */
import { CHANGE_LAGS } from './lookback';

const MAX_LAG = Math.max(...CHANGE_LAGS);
/** Seconds whose print counts are read: the newest and MAX_LAG + 1 before it. */
const TICK_RING = MAX_LAG + 2;

export class LaggedVolume {
	readonly lags: readonly number[] = CHANGE_LAGS;
	/** `byLag[i][c]`: contract c's session volume at the end of second max(0, tick - lags[i]). */
	readonly byLag: Float64Array[];
	private contract = new Int32Array(4096);
	/** Print sizes are whole contracts (market/trades.ts), exact in 32 bits at half the memory. */
	private size = new Int32Array(4096);
	/** Global index (over the session's prints) of slot 0 of the arrays above. */
	private base = 0;
	/** Prints recorded so far in the session. */
	private count = 0;
	/** Global print count at the end of second t, at t % TICK_RING (the last 30 minutes only). */
	private readonly tickEnd = new Float64Array(TICK_RING);

	constructor(contracts: number) {
		this.byLag = CHANGE_LAGS.map(() => new Float64Array(contracts));
	}

	private endOf(tick: number): number {
		return this.tickEnd[tick % TICK_RING];
	}

	/** One print of the current second (in the order the volumes add them). */
	record(contract: number, size: number): void {
		if (this.count - this.base === this.contract.length) this.grow();
		const i = this.count - this.base;
		this.contract[i] = contract;
		this.size[i] = size;
		this.count++;
	}

	/** Ends second `tick` (its prints recorded, `volume` including them): every lag moves on. */
	endTick(tick: number, volume: Float64Array): void {
		this.tickEnd[tick % TICK_RING] = this.count;
		if (tick === 0) {
			for (const v of this.byLag) v.set(volume);
		} else {
			for (let l = 0; l < this.lags.length; l++) {
				const s = tick - this.lags[l];
				if (s < 1) continue;
				const v = this.byLag[l];
				for (let g = this.endOf(s - 1), end = this.endOf(s); g < end; g++)
					v[this.contract[g - this.base]] += this.size[g - this.base];
			}
		}
		// Prints older than the longest lag are never read again.
		const oldest = tick + 1 - MAX_LAG;
		if (oldest >= 1) this.drop(this.endOf(oldest - 1));
	}

	/** Forget prints before global index `keepFrom` (compacting once half the buffer is stale). */
	private drop(keepFrom: number): void {
		const stale = keepFrom - this.base;
		if (stale * 2 < this.contract.length) return;
		const live = this.count - keepFrom;
		this.contract.copyWithin(0, stale, stale + live);
		this.size.copyWithin(0, stale, stale + live);
		this.base = keepFrom;
	}

	private grow(): void {
		const contract = new Int32Array(this.contract.length * 2);
		const size = new Int32Array(this.size.length * 2);
		contract.set(this.contract);
		size.set(this.size);
		this.contract = contract;
		this.size = size;
	}
}
