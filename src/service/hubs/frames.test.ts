/**
 * Properties of the frames the hubs send: every one decodes, a decoded Gex is the engine's
 * value to within the wire scaling, and out-of-range values arrive clamped to the field's range
 * (uint32 levels never negative, sint32 x1000 sums saturated at about +/-2.1 million), never
 * wrapped around.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { INT32_MAX, INT32_MIN, UINT32_MAX } from '../../lib/contract/scaling';
import { decodeBase64Frame } from '../../lib/wire/decode';
import { encodeFrame, initWireEncoder } from '../../lib/wire/encode';
import type { Payload, TickEvent } from '../source';
import { createGroupEncoder } from './frames';

beforeAll(() => initWireEncoder());

const encoder = createGroupEncoder((frame, value) => encodeFrame(frame, value as never));

const level = fc.double({ min: -1e3, max: 1e7, noNaN: true, noDefaultInfinity: true });
const exposure = fc.double({ min: -5e7, max: 5e7, noNaN: true, noDefaultInfinity: true });
const bigSum = fc.double({ min: -1e10, max: 1e10, noNaN: true, noDefaultInfinity: true });

const chain = fc.record({
	timestamp: fc.integer({ min: 1_600_000_000, max: 2_000_000_000 }),
	min_dte: fc.integer({ min: 0, max: 90 }),
	sec_min_dte: fc.integer({ min: 0, max: 90 }),
	spot: level,
	zero_gamma: level,
	major_pos_vol: level,
	major_pos_oi: level,
	major_neg_vol: level,
	major_neg_oi: level,
	strikes: fc.array(
		fc.tuple(level, exposure, exposure, fc.array(exposure, { minLength: 5, maxLength: 5 })),
		{ maxLength: 40 }
	),
	sum_gex_vol: bigSum,
	sum_gex_oi: bigSum,
	delta_risk_reversal: fc.double({ min: -10, max: 10, noNaN: true }),
	max_priors: fc.array(fc.tuple(level, exposure), { minLength: 6, maxLength: 6 })
});

function payload(timestamp: number, value: unknown): Payload {
	return { timestamp, value, body: Buffer.from(JSON.stringify(value)) };
}

function tickOf(value: { timestamp: number; spot: number }): TickEvent {
	return {
		timestamp: value.timestamp,
		tickers: new Map([
			[
				'SPX',
				{
					spot: value.spot,
					payloads: new Map([
						['classic/gex_full', payload(value.timestamp, { ...value, ticker: 'SPX' })]
					])
				}
			]
		])
	};
}

/** The value a field can carry: clamped to its range, then within 1/scale (truncation). */
function expectWire(decoded: number, value: number, type: 'uint32' | 'sint32', scale: number) {
	const min = type === 'uint32' ? 0 : INT32_MIN / scale;
	const max = type === 'uint32' ? UINT32_MAX / scale : INT32_MAX / scale;
	const clamped = Math.min(max, Math.max(min, value));
	expect(decoded).toBeGreaterThanOrEqual(min);
	expect(decoded).toBeLessThanOrEqual(max);
	expect(Math.abs(decoded - clamped)).toBeLessThanOrEqual(1 / scale + 1e-9 * Math.abs(clamped));
}

describe('hub frames', () => {
	it('gex and spot frames decode; values round-trip within the scaling, clamped at the range', () => {
		fc.assert(
			fc.property(chain, (value) => {
				const tick = tickOf(value);
				const gexData = encoder('SPX_classic_gex_full', tick);
				const spotData = encoder('SPX_spot', tick);
				expect(gexData).toBeDefined();
				const gex = decodeBase64Frame(gexData!);
				const spot = decodeBase64Frame(spotData!);
				if (gex.kind !== 'gex' || spot.kind !== 'spot') throw new Error('wrong frame kinds');
				expect(gex.typeUrl).toContain('proto.gex');
				expect(spot.typeUrl).toContain('proto.spot');
				const g = gex.value;
				expect(g.timestamp).toBe(value.timestamp);
				expect(spot.value.timestamp).toBe(value.timestamp);
				expect(spot.value.ticker).toBe('SPX');
				expect(spot.value.spot).toBe(g.spot);
				for (const f of [
					'spot',
					'zero_gamma',
					'major_pos_vol',
					'major_pos_oi',
					'major_neg_vol',
					'major_neg_oi'
				] as const) {
					expectWire(g[f], value[f], 'uint32', 100);
				}
				for (const f of ['sum_gex_vol', 'sum_gex_oi', 'delta_risk_reversal'] as const) {
					expectWire(g[f], value[f], 'sint32', 1000);
				}
				expect(g.strikes.length).toBe(value.strikes.length);
				value.strikes.forEach(([strike, byVol, byOi, priors], i) => {
					const [ds, dv, doi, dp] = g.strikes[i];
					expectWire(ds, strike, 'uint32', 100);
					expectWire(dv, byVol, 'sint32', 100);
					expectWire(doi, byOi, 'sint32', 100);
					priors.forEach((p, j) => expectWire(dp[j], p, 'sint32', 100));
				});
				value.max_priors.forEach(([s, v], i) => {
					expectWire(g.max_priors[i][0], s, 'sint32', 100);
					expectWire(g.max_priors[i][1], v, 'sint32', 1000);
				});
			}),
			{ numRuns: 150 }
		);
	});

	it('clamps deliberately: a negative level is 0 and an oversized sum saturates', () => {
		const value = {
			timestamp: 1_790_000_000,
			min_dte: 0,
			sec_min_dte: 1,
			spot: 5000,
			zero_gamma: -12.5,
			major_pos_vol: 5010,
			major_pos_oi: 5050,
			major_neg_vol: 4990,
			major_neg_oi: 4950,
			strikes: [[5000, 1e9, -1e9, [0, 0, 0, 0, 0]]],
			sum_gex_vol: 3_000_000,
			sum_gex_oi: -3_000_000,
			delta_risk_reversal: 0.1,
			max_priors: Array.from({ length: 6 }, () => [5000, 1])
		};
		const frame = decodeBase64Frame(encoder('SPX_classic_gex_full', tickOf(value))!);
		if (frame.kind !== 'gex') throw new Error('not a gex frame');
		expect(frame.value.zero_gamma).toBe(0);
		expect(frame.value.sum_gex_vol).toBe(INT32_MAX / 1000);
		expect(frame.value.sum_gex_oi).toBe(INT32_MIN / 1000);
		expect(frame.value.strikes[0][1]).toBe(INT32_MAX / 100);
		expect(frame.value.strikes[0][2]).toBe(INT32_MIN / 100);
	});

	it('has no frame for a ticker or explicit expiry the tick does not carry', () => {
		const tick = tickOf({ timestamp: 1_790_000_000, spot: 1 } as never);
		expect(encoder('SPY_classic_gex_full', tick)).toBeUndefined();
		expect(encoder('SPX_state_gamma_20261218', tick)).toBeUndefined();
		expect(encoder('not a group', tick)).toBeUndefined();
	});
});
