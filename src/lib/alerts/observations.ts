/**
 * What the alert engine reads and answers (see engine.ts): the observations it is fed (a chain's
 * levels, a spot, an orderflow snapshot) and the firings they cause.
 */
import type { AlertRule } from './rules';

/** The levels of one Classic/State chain calculation. */
export interface ChainObservation {
	kind: 'chain';
	ticker: string;
	/** `classic_gex_full`, `state_gex_zero`, ... */
	stream: string;
	/** Unix seconds of the calculation. */
	t: number;
	spot: number;
	zero_gamma: number;
	major_pos_vol: number;
	major_neg_vol: number;
	major_pos_oi: number;
	major_neg_oi: number;
	sum_gex_vol: number;
	sum_gex_oi: number;
	/** Flat [strike, value] x 6: current, 1, 5, 10, 15, 30 minutes. */
	max_priors: ArrayLike<number>;
}

export interface SpotObservation {
	kind: 'spot';
	ticker: string;
	t: number;
	spot: number;
}

export interface OrderflowObservation {
	kind: 'orderflow';
	ticker: string;
	t: number;
	spot: number;
	dexoflow: number;
	gexoflow: number;
	one_dexoflow: number;
	one_gexoflow: number;
}

export type Observation = ChainObservation | SpotObservation | OrderflowObservation;

/** A rule that fired: the values that fired it, in data time. */
export interface Firing {
	ruleId: string;
	ticker: string;
	kind: AlertRule['kind'];
	/** Unix seconds of the observation that fired it. */
	at: number;
	/** `up` / `down` for crossings and sign changes. */
	direction?: 'up' | 'down';
	/** One line for a toast or a chat message. */
	message: string;
	/** The numbers that fired it (spot, level, value, previous level, ...). */
	values: Record<string, number>;
}

export interface EngineOptions {
	/** Data older than this relative to the previous observation is a gap (default 120 s). */
	maxGapSeconds?: number;
}
