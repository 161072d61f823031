/**
 * The levels document: what `/feed/v1/levels/<TICKER>` answers (JSON) and every other format is
 * written from. Built from one Classic chain (the gex_* snapshot or its stream frame), the time
 * the dashboard received it, and optionally a futures conversion. Pure: server and browser
 * (the "Copy for TradingView" button) build the same document from the same chain.
 *
 * Every level is present with a price or null, and a null always carries a `reason`.
 */
import type { ClassicChain, FuturesConversionBody } from '../contract/schemas';
import { freshness } from '../contract/freshness';
import { etParts, formatEtClock } from '../contract/newYorkTime';

export const LEVELS_SCHEMA = 'gexdeck.levels/1';
/** Levels not updated for this long (seconds) are stale (the feed's `stale_after_seconds`). */
export const STALE_AFTER_S = 10;
/** Windows of `max_priors`, in order. */
export const MAX_CHANGE_WINDOWS = ['current', '1m', '5m', '10m', '15m', '30m'] as const;
/** Price tick of each future: converted levels land on this grid. */
export const FUTURE_TICKS: Readonly<Record<string, number>> = {
	ES: 0.25,
	NQ: 0.25,
	RTY: 0.1,
	YM: 1,
	GC: 0.1,
	CL: 0.01
};

export type LevelKind = 'spot' | 'zero' | 'pos' | 'neg';
export type LevelId =
	| 'zero_gamma_vol'
	| 'zero_gamma_oi'
	| 'major_pos_vol'
	| 'major_pos_oi'
	| 'major_neg_vol'
	| 'major_neg_oi';

export interface Level {
	id: LevelId;
	label: string;
	kind: LevelKind;
	price: number | null;
	/** Why `price` is null; null when it is not. */
	reason: string | null;
}

export interface MaxChangeWindow {
	window: (typeof MAX_CHANGE_WINDOWS)[number];
	strike: number | null;
	change: number | null;
	reason: string | null;
}

export interface StrikeGex {
	strike: number;
	net_gex_vol: number;
	net_gex_oi: number;
}

export interface FutureBasis {
	root: string;
	contract: string;
	multiplier: number;
	additive: number;
	tick: number;
	/** When the dashboard fetched this conversion (unix ms), and its age in seconds. */
	fetched_at: number;
	age_seconds: number;
}

export type LevelsSource = 'stream' | 'poll' | 'recording';

export interface LevelsDocument {
	schema: typeof LEVELS_SCHEMA;
	ticker: string;
	category: string;
	/** The data's own timestamp: unix ms and New York wall time. */
	as_of: { unix_ms: number; et: string };
	/** Seconds since the dashboard last received this ticker's data from the upstream. */
	age_seconds: number;
	stale: boolean;
	stale_after_seconds: number;
	/** Why the levels are stale (not updating since as_of), null when they are live. */
	stale_reason: string | null;
	source: LevelsSource;
	/** Prices are in this instrument (the ticker, or the future when converted). */
	price_of: string;
	spot: number;
	levels: Level[];
	max_change: MaxChangeWindow[];
	strikes?: StrikeGex[];
	future?: FutureBasis;
}

export interface LevelsInput {
	chain: ClassicChain;
	category: string;
	receivedAt: number;
	now: number;
	source: LevelsSource;
	staleAfterSeconds: number;
	/** Why the feed is not updating (the holder's reason: market closed, poll failed, ...). */
	notUpdating?: string | null;
	/**
	 * Judge the data's own timestamp against \`now\` and the session calendar (contract/freshness):
	 * a replay of a past session, the last session while closed, or data past the lag is stale,
	 * with the badge's words as its reason. \`simulated\`: the service is the embedded market.
	 */
	session?: { simulated: boolean };
	strikes?: number;
	future?: { root: string; conversion: FuturesConversionBody; fetchedAt: number };
}

let lastEt: { ms: number; text: string } | undefined;

/** `2026-11-27 10:15:02 ET` (the last one kept: every request of one update asks the same). */
export function etText(unixMs: number): string {
	if (lastEt?.ms === unixMs) return lastEt.text;
	const text = etTextOf(unixMs);
	lastEt = { ms: unixMs, text };
	return text;
}

function etTextOf(unixMs: number): string {
	return `${etParts(unixMs).date} ${formatEtClock(unixMs / 1000)} ET`;
}

/** Rounds to `tick` without binary noise (7590.25, never 7590.250000001). */
export function roundToTick(value: number, tick: number): number {
	const decimals = String(tick).split('.')[1]?.length ?? 0;
	return Number((Math.round(value / tick) * tick).toFixed(decimals));
}

const ZERO_REASON_VOL = 'no sign change of the volume GEX profile within +-20% of spot';
const ZERO_REASON_OI = 'the upstream publishes zero gamma by volume only';
const OI_ZERO_REASON = 'this category reports no open-interest levels (sent as 0)';

function levelOf(
	id: LevelId,
	label: string,
	kind: LevelKind,
	value: number,
	zeroReason: string
): Level {
	return value > 0
		? { id, label, kind, price: value, reason: null }
		: { id, label, kind, price: null, reason: zeroReason };
}

export function buildLevels(input: LevelsInput): LevelsDocument {
	const { chain, future } = input;
	const oiZero = chain.major_pos_oi === 0 && chain.major_neg_oi === 0 && chain.sum_gex_oi === 0;
	const tick = future ? (FUTURE_TICKS[future.root] ?? 0.01) : undefined;
	const conv = (v: number) =>
		future && tick !== undefined
			? roundToTick(v * future.conversion.multiplier + future.conversion.additive, tick)
			: v;
	const px = (l: Level): Level => (l.price === null ? l : { ...l, price: conv(l.price) });
	const all: Level[] = [
		levelOf('zero_gamma_vol', 'Zero Gamma', 'zero', chain.zero_gamma, ZERO_REASON_VOL),
		{
			id: 'zero_gamma_oi',
			label: 'Zero Gamma OI',
			kind: 'zero',
			price: null,
			reason: ZERO_REASON_OI
		},
		levelOf(
			'major_pos_vol',
			'Major + vol',
			'pos',
			chain.major_pos_vol,
			'no strike with positive net GEX by volume'
		),
		levelOf(
			'major_pos_oi',
			'Major + OI',
			'pos',
			chain.major_pos_oi,
			oiZero ? OI_ZERO_REASON : 'no strike with positive net GEX by OI'
		),
		levelOf(
			'major_neg_vol',
			'Major - vol',
			'neg',
			chain.major_neg_vol,
			'no strike with negative net GEX by volume'
		),
		levelOf(
			'major_neg_oi',
			'Major - OI',
			'neg',
			chain.major_neg_oi,
			oiZero ? OI_ZERO_REASON : 'no strike with negative net GEX by OI'
		)
	];
	const levels = all.map(px);
	const maxChange = MAX_CHANGE_WINDOWS.map((window, i): MaxChangeWindow => {
		const pair = chain.max_priors[i];
		if (!pair || pair[0] <= 0) {
			return {
				window,
				strike: null,
				change: null,
				reason: 'no change recorded in this window yet'
			};
		}
		return { window, strike: conv(pair[0]), change: pair[1], reason: null };
	});
	const age = Math.max(0, (input.now - input.receivedAt) / 1000);
	const notLive = input.session
		? freshness({ dataTimestamp: chain.timestamp, now: input.now, ...input.session })
		: undefined;
	const sessionReason = notLive && !notLive.live ? notLive.text : null;
	const doc: LevelsDocument = {
		schema: LEVELS_SCHEMA,
		ticker: chain.ticker,
		category: input.category,
		as_of: { unix_ms: Math.round(chain.timestamp * 1000), et: etText(chain.timestamp * 1000) },
		age_seconds: Math.round(age * 10) / 10,
		stale: Boolean(input.notUpdating) || sessionReason !== null || age > input.staleAfterSeconds,
		stale_after_seconds: input.staleAfterSeconds,
		stale_reason:
			input.notUpdating ??
			sessionReason ??
			(age > input.staleAfterSeconds
				? `no update for ${Math.round(age)} s (limit ${input.staleAfterSeconds} s)`
				: null),
		source: input.source,
		price_of: future ? future.conversion.future_contract : chain.ticker,
		spot: conv(chain.spot),
		levels,
		max_change: maxChange
	};
	if (input.strikes && input.strikes > 0) {
		doc.strikes = [...chain.strikes]
			.sort((a, b) => Math.abs(a[0] - chain.spot) - Math.abs(b[0] - chain.spot))
			.slice(0, input.strikes)
			.sort((a, b) => a[0] - b[0])
			.map(([strike, vol, oi]) => ({ strike: conv(strike), net_gex_vol: vol, net_gex_oi: oi }));
	}
	if (future && tick !== undefined) {
		doc.future = {
			root: future.root,
			contract: future.conversion.future_contract,
			multiplier: future.conversion.multiplier,
			additive: future.conversion.additive,
			tick,
			fetched_at: future.fetchedAt,
			age_seconds: Math.round(Math.max(0, input.now - future.fetchedAt) / 1000)
		};
	}
	return doc;
}
