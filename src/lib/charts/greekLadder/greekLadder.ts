/**
 * The State greek profile (GET /{ticker}/state/<greek>_<zero|one>, or its streamed
 * OptionProfile) shaped into the ladder the State view draws, in one of two forms:
 * - net (what the live service sends): one net value per strike in call_value with its priors,
 *   the put fields null; drawn as one signed bar per strike;
 * - mirrored (the documented split): the call side and the put side kept apart (they never
 *   swap), with the lookback priors of each side.
 * Both carry the call and put implied vol for the smile line and the profile's major levels.
 *
 * mini_contracts row: [strike, call_ivol, put_ivol, call_value, [call priors], put_value | null,
 * [put priors] | null].
 */
import { bisector } from 'd3';
import { greekProfileSchema, type GreekProfile } from '../../contract/schemas';
import { parseWith } from '../../contract/validate';
import type { StreamUpdate } from '../../stream/transport/updates';
import type { StrikeWindow } from '../../state/viewState';
import { columnarGreekProfile, type ColumnarGreekProfile } from '../../wire/columnar';

export type { GreekProfile };

/** The profile validated against the contract's runtime schema (throws SchemaError with the path). */
export function parseGreekProfile(value: unknown): GreekProfile {
	return parseWith(greekProfileSchema, value);
}

/**
 * A polled REST profile in the shape the ladder reads, the worker's columns: validated, then
 * mapped once (wire/columnar.ts columnarGreekProfile). The snapshot cache keeps streamed
 * profiles as columns: those come back as they are, once their columns are checked.
 */
export function parseGreekColumns(value: unknown): ColumnarGreekProfile {
	if (isColumnarGreekProfile(value)) return value;
	return columnarGreekProfile(parseGreekProfile(value));
}

const COLUMNS = ['strikes', 'callIvol', 'putIvol', 'callValue', 'putValue'] as const;
const SCALARS = [
	'timestamp',
	'spot',
	'minDte',
	'secMinDte',
	'majorPositive',
	'majorNegative',
	'majorLongGamma',
	'majorShortGamma',
	'callPriorCount',
	'putPriorCount'
] as const;

/** A ColumnarGreekProfile as structured clone gives it back (consistent typed arrays). */
function isColumnarGreekProfile(v: unknown): v is ColumnarGreekProfile {
	if (!v || typeof v !== 'object') return false;
	const c = v as Record<string, unknown>;
	const typed = [...COLUMNS, 'callPriors', 'putPriors'].every((k) => c[k] instanceof Float64Array);
	if (!typed || typeof c.ticker !== 'string') return false;
	if (!SCALARS.every((k) => typeof c[k] === 'number')) return false;
	const g = v as ColumnarGreekProfile;
	const n = g.strikes.length;
	return (
		COLUMNS.every((k) => g[k].length === n) &&
		g.callPriors.length === n * g.callPriorCount &&
		g.putPriors.length === n * g.putPriorCount
	);
}

export interface LadderSide {
	/** The greek's value of this side at the strike (sign as published). */
	value: number;
	/** Implied vol as a fraction (0.17 = 17 %); NaN when the upstream sends none (0). */
	iv: number;
	/** Lookback priors, order as published. */
	priors: number[];
}

export interface LadderRow {
	strike: number;
	/** The call side; in a net profile the strike's net value (calls and puts together). */
	call: LadderSide;
	/** The put side; null in a net profile. */
	put: LadderSide | null;
	/** Put implied vol (NaN when none), in both forms. */
	putIv: number;
}

export type LadderLevelId = 'longGamma' | 'shortGamma' | 'majorCall' | 'majorPut';

export interface LadderLevel {
	id: LadderLevelId;
	label: string;
	strike: number;
}

export interface LadderModel {
	/** Ascending strikes, each once. */
	rows: LadderRow[];
	/** One net value per strike (put side null), not the mirrored call/put split. */
	net: boolean;
	spot: number;
	/** Major levels the profile names; a 0 (not computed) is left out. */
	levels: LadderLevel[];
	/** Rows dropped because a later row repeated their strike (the later one is kept). */
	duplicateStrikes: number;
}

const LEVEL_LABELS: Record<LadderLevelId, string> = {
	longGamma: 'long γ',
	shortGamma: 'short γ',
	majorCall: 'major call',
	majorPut: 'major put'
};

function ivOf(v: number): number {
	return v > 0 ? v : Number.NaN;
}

/** The ladder from the worker's columns (a NaN put value: no put side, as in a net profile). */
export function ladderModel(profile: ColumnarGreekProfile): LadderModel {
	const byStrike = new Map<number, LadderRow>();
	const priorsOf = (flat: Float64Array, width: number, i: number) =>
		Array.from(flat.subarray(i * width, (i + 1) * width)).filter((v) => !Number.isNaN(v));
	for (let i = 0; i < profile.strikes.length; i++) {
		const strike = profile.strikes[i];
		const putValue = profile.putValue[i];
		const putIv = ivOf(profile.putIvol[i]);
		byStrike.set(strike, {
			strike,
			call: {
				value: profile.callValue[i],
				iv: ivOf(profile.callIvol[i]),
				priors: priorsOf(profile.callPriors, profile.callPriorCount, i)
			},
			put: Number.isNaN(putValue)
				? null
				: {
						value: putValue,
						iv: putIv,
						priors: priorsOf(profile.putPriors, profile.putPriorCount, i)
					},
			putIv
		});
	}
	const rows = [...byStrike.values()].sort((a, b) => a.strike - b.strike);
	// A profile is net when its put side is absent; a mix (never seen) is drawn net too, so no
	// strike shows a made-up put side.
	const net = rows.length > 0 && rows.some((r) => r.put === null);
	if (net) for (const r of rows) r.put = null;
	const named: [LadderLevelId, number][] = [
		['longGamma', profile.majorLongGamma],
		['shortGamma', profile.majorShortGamma],
		// The wire calls these major_call_gamma / major_put_gamma; REST major_positive / _negative.
		['majorCall', profile.majorPositive],
		['majorPut', profile.majorNegative]
	];
	return {
		rows,
		net,
		spot: profile.spot,
		levels: named
			.filter(([, strike]) => strike > 0)
			.map(([id, strike]) => ({ id, label: LEVEL_LABELS[id], strike })),
		duplicateStrikes: profile.strikes.length - rows.length
	};
}

/**
 * The automatic window: `count` consecutive strikes centred on spot (rows ascending). Phones
 * ask for fewer so rows stay tall enough to tap.
 */
export function ladderWindow(
	rows: readonly LadderRow[],
	spot: number,
	count: number
): StrikeWindow | null {
	if (rows.length === 0) return null;
	const n = Math.max(1, Math.min(count, rows.length));
	const centre = bisector((r: LadderRow) => r.strike).center(rows, spot);
	const start = Math.max(0, Math.min(rows.length - n, centre - Math.floor(n / 2)));
	const lo = rows[start].strike;
	const hi = rows[start + n - 1].strike;
	if (lo < hi) return { lo, hi };
	// One strike: widen by half the gap to its nearest neighbour (1 when it has none), so the
	// window has a width without taking in a neighbour however closely strikes are listed.
	const gaps = [rows[start + 1]?.strike - hi, lo - rows[start - 1]?.strike].filter((g) => g > 0);
	const pad = gaps.length > 0 ? Math.min(...gaps) / 2 : 1;
	return { lo: lo - pad, hi: hi + pad };
}

/** Largest |value| of both sides in `rows` (priors too when drawn): one scale for both sides. */
export function ladderMagnitude(rows: readonly LadderRow[], withPriors: boolean): number {
	let m = 0;
	for (const r of rows) {
		m = Math.max(m, Math.abs(r.call.value), Math.abs(r.put?.value ?? 0));
		if (withPriors) {
			for (const p of r.call.priors) m = Math.max(m, Math.abs(p));
			for (const p of r.put?.priors ?? []) m = Math.max(m, Math.abs(p));
		}
	}
	return m;
}

/** Back to the REST row form (tests and exports; the views read the columns). */
export function greekProfileFromColumnar(c: ColumnarGreekProfile): GreekProfile {
	const side = (flat: Float64Array, width: number, i: number) =>
		Array.from(flat.subarray(i * width, (i + 1) * width)).filter((v) => !Number.isNaN(v));
	const rows: GreekProfile['mini_contracts'] = [];
	for (let i = 0; i < c.strikes.length; i++) {
		rows.push([
			c.strikes[i],
			c.callIvol[i],
			c.putIvol[i],
			c.callValue[i],
			side(c.callPriors, c.callPriorCount, i),
			Number.isNaN(c.putValue[i]) ? null : c.putValue[i],
			Number.isNaN(c.putValue[i]) ? null : side(c.putPriors, c.putPriorCount, i)
		]);
	}
	return {
		timestamp: c.timestamp,
		ticker: c.ticker,
		spot: c.spot,
		min_dte: c.minDte,
		sec_min_dte: c.secMinDte,
		major_positive: c.majorPositive,
		major_negative: c.majorNegative,
		major_long_gamma: c.majorLongGamma,
		major_short_gamma: c.majorShortGamma,
		mini_contracts: rows
	};
}

/** StreamFeed `shape` of a greek group: the worker's columns, or undefined for another kind. */
export function greekProfileUpdate(u: StreamUpdate): ColumnarGreekProfile | undefined {
	return u.kind === 'greek' ? u.value : undefined;
}
