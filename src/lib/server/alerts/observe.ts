/**
 * Updates of the alerts' held feeds -> engine observations. The feed holder hands each update
 * decoded (stream frames by the project's one wire decoder); polled snapshots are validated here
 * with the contract's schemas, and only when a rule reads that ticker's stream.
 */
import { feedStream } from '../../contract/feeds';
import { classicChainSchema, orderflowSchema, type ClassicChain } from '../../contract/schemas';
import { safeParse } from '../../contract/validate';
import type { AlertEngine, ChainObservation, Observation } from '../../alerts/engine';
import type { FeedUpdate } from '../feeds';

const CHAIN_STREAM = /^(classic|state)_gex_(full|zero|one)$/;

function chainObservation(ticker: string, stream: string, c: ClassicChain): ChainObservation {
	return {
		kind: 'chain',
		ticker,
		stream,
		t: c.timestamp,
		spot: c.spot,
		zero_gamma: c.zero_gamma,
		major_pos_vol: c.major_pos_vol,
		major_neg_vol: c.major_neg_vol,
		major_pos_oi: c.major_pos_oi,
		major_neg_oi: c.major_neg_oi,
		sum_gex_vol: c.sum_gex_vol,
		sum_gex_oi: c.sum_gex_oi,
		max_priors: c.max_priors.flat()
	};
}

function orderflowObservation(
	ticker: string,
	o: { timestamp: number; spot: number } & Record<string, unknown>
): Observation {
	const n = (k: string) => (typeof o[k] === 'number' ? (o[k] as number) : Number.NaN);
	return {
		kind: 'orderflow',
		ticker,
		t: o.timestamp,
		spot: o.spot,
		dexoflow: n('dexoflow'),
		gexoflow: n('gexoflow'),
		one_dexoflow: n('one_dexoflow'),
		one_gexoflow: n('one_gexoflow')
	};
}

/**
 * The observation an update of a held feed carries for `engine`'s rules, or undefined (no rule
 * reads it, or it is not understood). The feed holder decoded it once for all its subscribers;
 * a polled body is validated here. Throws on a body that is no snapshot; the caller counts and
 * skips it.
 */
export function observationOf(update: FeedUpdate, engine: AlertEngine): Observation | undefined {
	const ticker = update.ticker;
	const stream = update.feed ? feedStream(update.feed) : 'spot';
	if (!engine.wants(ticker, stream)) return undefined;
	if (update.source === 'stream') {
		const frame = update.frame;
		switch (frame.kind) {
			case 'spot':
				return { kind: 'spot', ticker, t: frame.value.timestamp, spot: frame.value.spot };
			case 'gex':
				return CHAIN_STREAM.test(stream)
					? chainObservation(ticker, stream, frame.value)
					: undefined;
			case 'orderflow':
				return orderflowObservation(ticker, frame.value);
			default:
				return undefined;
		}
	}
	if (CHAIN_STREAM.test(stream)) {
		const r = safeParse(classicChainSchema, update.body);
		if (!r.ok) throw new Error(`${ticker} ${stream}: ${r.path}: ${r.message}`);
		return chainObservation(ticker, stream, r.value);
	}
	if (stream === 'orderflow_orderflow') {
		const r = safeParse(orderflowSchema, update.body);
		if (!r.ok) throw new Error(`${ticker} orderflow: ${r.path}: ${r.message}`);
		return orderflowObservation(ticker, r.value);
	}
	return undefined;
}
