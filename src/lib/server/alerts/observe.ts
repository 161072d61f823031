/**
 * Updates from the tap -> engine observations. Stream frames are decoded with the project's one
 * wire decoder (src/lib/wire), polled snapshots validated with the contract's schemas, and only
 * when a rule reads that ticker's stream: frames nobody has a rule on cost a map lookup.
 */
import { classicChainSchema, orderflowSchema, type ClassicChain } from '../../contract/schemas';
import { safeParse } from '../../contract/validate';
import type { AlertEngine, ChainObservation, Observation } from '../../alerts/engine';
import { decodeFrame } from '../../wire/decode';
import { streamOfGroup } from '../recorder/sessionRecorder';
import type { ReceivedUpdate } from '../updates/tap';

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
 * The observation an update carries for `engine`'s rules, or undefined (no rule reads it, or it
 * is not understood). Throws on a corrupt frame or body; the caller counts and skips it.
 */
export function observationOf(
	update: ReceivedUpdate,
	engine: AlertEngine
): Observation | undefined {
	if (update.source === 'stream') {
		const s = streamOfGroup(update.group);
		if (!s || !engine.wants(s.ticker, s.stream)) return undefined;
		const frame = decodeFrame(update.any);
		switch (frame.kind) {
			case 'spot':
				return { kind: 'spot', ticker: s.ticker, t: frame.value.timestamp, spot: frame.value.spot };
			case 'gex':
				return CHAIN_STREAM.test(s.stream)
					? chainObservation(s.ticker, s.stream, frame.value)
					: undefined;
			case 'orderflow':
				return orderflowObservation(s.ticker, frame.value);
			default:
				return undefined;
		}
	}
	if (!engine.wants(update.ticker, update.stream)) return undefined;
	const body = JSON.parse(update.json) as unknown;
	if (CHAIN_STREAM.test(update.stream)) {
		const r = safeParse(classicChainSchema, body);
		if (!r.ok) throw new Error(`${update.ticker} ${update.stream}: ${r.path}: ${r.message}`);
		return chainObservation(update.ticker, update.stream, r.value);
	}
	if (update.stream === 'orderflow_orderflow') {
		const r = safeParse(orderflowSchema, body);
		if (!r.ok) throw new Error(`${update.ticker} orderflow: ${r.path}: ${r.message}`);
		return orderflowObservation(update.ticker, r.value);
	}
	return undefined;
}
