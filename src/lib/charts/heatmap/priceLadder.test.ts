/**
 * The heatmap's price axis to scale (issue 25 item 8): rows by price, not one per listed strike.
 * The strikes the issue names (7,350 / 7,400 / 7,430 and 7,560 / 7,625 / 7,725 / 7,825) fill
 * their price spans, and a spot moving at a constant rate is a straight line.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HeatmapGrid, MAX_LADDER_ROWS, type HeatColumn } from './heatmapGrid';
import { niceStep, rowOfPrice } from './heatmapScene';

const ISSUE_STRIKES = [7825, 7725, 7625, 7560, 7430, 7400, 7350];

function col(t: number, strikes: number[], spot: number): HeatColumn {
	return {
		timestamp: t,
		spot,
		zeroGamma: 0,
		majorPos: 0,
		majorNeg: 0,
		strikes,
		values: strikes.map((s) => s / 1000)
	};
}

/** Ladder rows each listed strike fills. */
function rowsPerStrike(g: HeatmapGrid): Map<number, number> {
	const m = new Map<number, number>();
	for (const row of g.ladder) m.set(g.strikes[row], (m.get(g.strikes[row]) ?? 0) + 1);
	return m;
}

describe('heatmap price ladder', () => {
	it('gives each strike rows in proportion to its price span (not one row each)', () => {
		const g = HeatmapGrid.from([col(1, ISSUE_STRIKES, 7500)]);
		expect(g.ladderStep).toBe(30); // 7,430 - 7,400: the finest spacing
		expect(g.priceRows).toBe(Math.ceil((7825 - 7350) / 30) + 1);
		const rows = rowsPerStrike(g);
		// 7,725 spans 50 pts each side; 7,400 only 15 above and 25 below.
		expect(rows.get(7725)).toBe(4);
		expect(rows.get(7400)).toBe(2);
		expect(rows.size).toBe(ISSUE_STRIKES.length);
	});

	it('draws a constant-rate spot as a straight line (equal row steps for equal price steps)', () => {
		const g = HeatmapGrid.from([col(1, ISSUE_STRIKES, 7500)]);
		const ys = [7360, 7410, 7460, 7510, 7560, 7610, 7660].map((p) => rowOfPrice(g, p));
		const steps = ys.slice(1).map((y, i) => y - ys[i]);
		for (const s of steps) expect(s).toBeCloseTo(steps[0], 9);
	});

	it('property: every ladder row shows the listed strike nearest its price, in price order', () => {
		fc.assert(
			fc.property(
				fc.uniqueArray(fc.integer({ min: 1, max: 2000 }), { minLength: 2, maxLength: 60 }),
				(raw) => {
					const strikes = raw.map((k) => k * 2.5);
					const g = HeatmapGrid.from([col(1, strikes, 100)]);
					expect(g.priceRows).toBeLessThanOrEqual(MAX_LADDER_ROWS);
					let prev = 0;
					for (let r = 0; r < g.priceRows; r++) {
						const price = g.priceOfLadderRow(r);
						const shown = g.strikes[g.ladder[r]];
						const best = Math.min(...strikes.map((s) => Math.abs(s - price)));
						expect(Math.abs(shown - price)).toBeCloseTo(best, 6);
						expect(g.ladder[r]).toBeGreaterThanOrEqual(prev);
						prev = g.ladder[r];
						expect(rowOfPrice(g, price)).toBeCloseTo(r, 6);
					}
					// Every strike keeps at least one row when the ladder is not capped.
					if (g.priceRows < MAX_LADDER_ROWS) expect(rowsPerStrike(g).size).toBe(strikes.length);
				}
			)
		);
	});

	it('re-ladders when a strike appears mid-session; earlier cells stay under their strike', () => {
		const g = HeatmapGrid.from([col(1, [7400, 7500], 7450)]);
		g.append(col(2, [7400, 7450, 7500], 7450));
		expect(g.ladderStep).toBe(50);
		expect(g.strikes[g.ladder[1]]).toBe(7450);
		expect(g.value(0, g.ladder[1])).toBeNaN();
		expect(g.value(1, g.ladder[1])).toBeCloseTo(7.45, 5);
	});

	it('labels the price axis at round steps', () => {
		expect(niceStep(7)).toBe(10);
		expect(niceStep(2.1)).toBe(2.5);
		expect(niceStep(30)).toBe(50);
		expect(niceStep(0)).toBe(1);
	});
});
