/**
 * Fixed-point scaling of the wire messages. A field marked x100 / x1000 carries
 * `trunc(value x scale)` as an integer. Two deliberate rules go beyond that:
 *
 * - Truncation is of the decimal value, not of its binary approximation: 7138.55 x 100 is
 *   713854.9999999999 in IEEE doubles, which plain `Math.trunc` would turn into 713854 (a whole
 *   cent lost). Products within 1e-9 (relative) of an integer are taken as that integer.
 * - Out-of-range values are clamped, never wrapped: a uint32 cannot carry a negative level, so
 *   negatives become 0 (and > 4294967295 becomes 4294967295); sint32 saturates at
 *   -2147483648 / 2147483647 (a sint32 x1000 sum caps at about +/-2.1 million units).
 *   NaN and missing values encode as 0 (proto3's default).
 */

export const UINT32_MAX = 4_294_967_295;
export const INT32_MIN = -2_147_483_648;
export const INT32_MAX = 2_147_483_647;

export type WireInt = 'uint32' | 'sint32';
/** A scaled integer field: its wire type and scale (1 = carried as is, truncated). */
export interface FieldScale {
	type: WireInt;
	scale: 1 | 100 | 1000;
}

export const U100: FieldScale = { type: 'uint32', scale: 100 };
export const U1000: FieldScale = { type: 'uint32', scale: 1000 };
export const S100: FieldScale = { type: 'sint32', scale: 100 };
export const S1000: FieldScale = { type: 'sint32', scale: 1000 };
export const S1: FieldScale = { type: 'sint32', scale: 1 };

/** trunc(value x scale) with representation noise removed (see above). */
export function truncScaled(value: number, scale: number): number {
	const x = value * scale;
	const r = Math.round(x);
	if (Math.abs(x - r) <= 1e-9 * Math.max(1, Math.abs(x))) return r;
	return Math.trunc(x);
}

/** The integer a field of `spec` carries for `value`, clamped to the wire range. */
export function toWire(value: number | null | undefined, spec: FieldScale): number {
	if (value === null || value === undefined || Number.isNaN(value)) return 0;
	const min = spec.type === 'uint32' ? 0 : INT32_MIN;
	const max = spec.type === 'uint32' ? UINT32_MAX : INT32_MAX;
	if (value === Infinity) return max;
	if (value === -Infinity) return min;
	const n = truncScaled(value, spec.scale);
	return n < min ? min : n > max ? max : n === 0 ? 0 : n; // n === 0 normalises -0
}

/** The value a wire integer of `spec` stands for. */
export function fromWire(wire: number, spec: FieldScale): number {
	return spec.scale === 1 ? wire : wire / spec.scale;
}

/** The representable range of `spec` in unscaled units. */
export function wireRange(spec: FieldScale): { min: number; max: number } {
	return spec.type === 'uint32'
		? { min: 0, max: UINT32_MAX / spec.scale }
		: { min: INT32_MIN / spec.scale, max: INT32_MAX / spec.scale };
}

/** Did encoding `value` lose more than truncation (i.e. was it clamped)? */
export function isClamped(value: number, spec: FieldScale): boolean {
	const { min, max } = wireRange(spec);
	return value < min || value > max;
}

/**
 * Per-field scales of the wire messages, keyed by proto field name (documentation and the
 * single source the encoder and decoders use).
 */
export const GEX_SCALES = {
	spot: U100,
	zero_gamma: U100,
	major_pos_vol: U100,
	major_pos_oi: U100,
	major_neg_vol: U100,
	major_neg_oi: U100,
	sum_gex_vol: S1000,
	sum_gex_oi: S1000,
	delta_risk_reversal: S1000,
	min_dte: S1,
	sec_min_dte: S1
} as const;

export const STRIKE_SCALES = {
	strike_price: U100,
	value_1: S100,
	value_2: S100,
	prior: S100
} as const;

export const MAX_PRIORS_SCALES = { first_value: S100, second_value: S1000 } as const;

export const OPTION_PROFILE_SCALES = {
	spot: U100,
	min_dte: S1,
	sec_min_dte: S1,
	major_call_gamma: U100,
	major_put_gamma: U100,
	major_long_gamma: U100,
	major_short_gamma: U100
} as const;

/** put_cvolume and its priors carry no scale (upstream quirk, kept as documented). */
export const MINI_CONTRACT_SCALES = {
	strike: U100,
	call_ivol: U1000,
	put_ivol: U1000,
	call_cvolume: S100,
	call_cvolume_prior: S100,
	put_cvolume: S1,
	put_cvolume_prior: S1
} as const;

export const SPOT_SCALES = { spot: U100 } as const;
