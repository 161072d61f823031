/**
 * The day overview body's round trip: every cell comes back within OVERVIEW_CELL_ERROR of its
 * column's largest |value| (int8 cells with a per-column scale), a strike a column lacked comes
 * back NaN, the lines as f32 and the times exactly; a body cut short is refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	decodeOverviewBody,
	encodeOverviewBody,
	OverviewBodyError,
	OVERVIEW_CELL_ERROR,
	type OverviewColumn
} from './overviewBody';

const META = {
	ticker: 'SPX',
	stream: 'classic_gex_full',
	day: '2026-11-23',
	metric: 'vol' as const,
	step: 10
};

// A column whose scale is below f32's range (|values| < ~1e-36) flushes to 0.
const TINY = 1e-36;

const column = fc
	.record({
		strikes: fc.uniqueArray(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 10 }),
		spot: fc.double({ min: 1, max: 1e4, noNaN: true }),
		scale: fc.constantFrom(1, 1e3, 1e9, 1e-3)
	})
	.chain(({ strikes, spot, scale }) =>
		fc
			.array(fc.oneof(fc.double({ min: -1, max: 1, noNaN: true }), fc.constant(Number.NaN)), {
				minLength: strikes.length,
				maxLength: strikes.length
			})
			.map((v) => ({
				strikes: strikes.map((s) => s * 5),
				spot,
				values: v.map((x) => Math.fround(x * scale))
			}))
	);

describe('overview body', () => {
	it('round-trips every cell within the bound of its column (property)', () => {
		fc.assert(
			fc.property(fc.array(column, { minLength: 1, maxLength: 12 }), (cols) => {
				const columns: OverviewColumn[] = cols.map((c, i) => ({
					timestamp: 1795446000 + i * 10,
					spot: c.spot,
					zeroGamma: c.spot - 1,
					majorPos: c.spot + 5,
					majorNeg: c.spot - 5,
					strikes: c.strikes,
					values: c.values
				}));
				const body = encodeOverviewBody(META, columns);
				const o = decodeOverviewBody(body);
				const strikes = o.header.strikes;
				expect(strikes).toEqual([...new Set(cols.flatMap((c) => c.strikes))].sort((a, b) => b - a));
				const rows = strikes.length;
				columns.forEach((c, col) => {
					expect(o.times[col]).toBe(c.timestamp);
					expect(o.spot[col]).toBe(Math.fround(c.spot));
					expect(o.majorNeg[col]).toBe(Math.fround(c.majorNeg));
					const finite = Array.from(c.values).filter(Number.isFinite);
					const max = Math.max(0, ...finite.map(Math.abs));
					strikes.forEach((strike, row) => {
						const i = Array.from(c.strikes).indexOf(strike);
						const cell = o.values[col * rows + row];
						if (i < 0 || !Number.isFinite(c.values[i])) expect(cell).toBeNaN();
						else
							expect(Math.abs(cell - c.values[i])).toBeLessThanOrEqual(
								max * (OVERVIEW_CELL_ERROR + 1e-6) + TINY
							);
					});
				});
				// The colour range found while decoding is the cells' largest |value|.
				const finiteCells = Array.from(o.values).filter(Number.isFinite);
				expect(o.maxAbs).toBe(Math.max(0, ...finiteCells.map(Math.abs)));
				// A byte a cell, besides the header and the 28 bytes of lines a column.
				expect(body.length).toBeLessThanOrEqual(
					columns.length * (28 + rows) + 8 + 8 + JSON.stringify(o.header).length
				);
				expect(() => decodeOverviewBody(body.subarray(0, body.length - 1))).toThrow(
					OverviewBodyError
				);
			})
		);
	});
});
