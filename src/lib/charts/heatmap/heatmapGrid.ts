/**
 * GEX over time as a grid for the heatmap: one column per calculation (time across), one row
 * per strike (highest at the top), net GEX (volume or OI) per cell, plus the per-column lines
 * drawn over it (spot, zero gamma, the majors). Columns are stored column-major in one growable
 * Float32Array so a live column appends in O(strikes) and a draw reads cells without objects.
 *
 * Pure: the canvas renderer (./heatmapRender) and tests use it directly.
 */

/** One calculation as the grid takes it (see columnOfGex / columnOfChain). */
export interface HeatColumn {
	timestamp: number;
	spot: number;
	zeroGamma: number;
	majorPos: number;
	majorNeg: number;
	strikes: ArrayLike<number>;
	/** Net GEX per strike, same order as `strikes`. */
	values: ArrayLike<number>;
}

export type HeatMetric = 'vol' | 'oi';

/** The fields of a ColumnarGex (stream) or of a REST chain mapped to columns. */
export interface GexLike {
	timestamp: number;
	spot: number;
	zeroGamma: number;
	majorPosVol: number;
	majorPosOi: number;
	majorNegVol: number;
	majorNegOi: number;
	strikes: ArrayLike<number>;
	gexVol: ArrayLike<number>;
	gexOi: ArrayLike<number>;
}

export function columnOfGex(g: GexLike, metric: HeatMetric): HeatColumn {
	return {
		timestamp: g.timestamp,
		spot: g.spot,
		zeroGamma: g.zeroGamma,
		majorPos: metric === 'vol' ? g.majorPosVol : g.majorPosOi,
		majorNeg: metric === 'vol' ? g.majorNegVol : g.majorNegOi,
		strikes: g.strikes,
		values: metric === 'vol' ? g.gexVol : g.gexOi
	};
}

/**
 * Many columns at once on one strike list, as a day overview decodes them (overviewBody.ts):
 * column c's value for strikes[i] is values[c * strikes.length + i].
 */
export interface HeatBlock {
	times: ArrayLike<number>;
	spot: ArrayLike<number>;
	zeroGamma: ArrayLike<number>;
	majorPos: ArrayLike<number>;
	majorNeg: ArrayLike<number>;
	strikes: ArrayLike<number>;
	values: ArrayLike<number>;
	/**
	 * The grid may keep `values` as its cell store (the caller hands it over and never touches it
	 * again): with the strikes already distinct and descending, the day needs no copy.
	 */
	handOver?: boolean;
	/** Largest finite |value| of the block when the caller knows it (else one pass finds it). */
	maxAbs?: number;
}

/** Index of the last of `times[0..length)` (ascending) at or before `t`; -1 before the first. */
export function lastAtOrBefore(times: ArrayLike<number>, length: number, t: number): number {
	let lo = 0;
	let hi = length;
	while (lo < hi) {
		const mid = (lo + hi) >>> 1;
		if (times[mid] <= t) lo = mid + 1;
		else hi = mid;
	}
	return lo - 1;
}

export type AppendResult = 'appended' | 'replaced' | 'older';

/** Most rows of the price ladder: a chain with far strikes spaced finely gets a coarser step. */
export const MAX_LADDER_ROWS = 4000;

export class HeatmapGrid {
	/** Strikes of the rows, descending (row 0 = highest strike, drawn at the top). */
	strikes: Float64Array = new Float64Array(0);
	private rowOf = new Map<number, number>();
	times = new Float64Array(256);
	spot = new Float64Array(256);
	zeroGamma = new Float64Array(256);
	majorPos = new Float64Array(256);
	majorNeg = new Float64Array(256);
	/** values[col * rows + row]; NaN where a column had no value for the strike. */
	values = new Float32Array(0);
	length = 0;
	/** Largest |value| seen: the colour scale's default half-range. */
	maxAbs = 0;
	/** Bumped on every change (views redraw on it). */
	revision = 0;
	/**
	 * The price axis to scale: ladder row k is the price ladderTop - k * ladderStep (the finest
	 * spacing of the listed strikes) and shows the grid row of the listed strike nearest that
	 * price, so each strike fills its price span and a straight price move is a straight line.
	 */
	ladder: Int32Array = new Int32Array(0);
	ladderTop = 0;
	ladderStep = 1;

	/** Rows of the price ladder (the heatmap's vertical units). */
	get priceRows(): number {
		return this.ladder.length;
	}

	/** Price at the centre of ladder row `r`. */
	priceOfLadderRow(r: number): number {
		return this.ladderTop - r * this.ladderStep;
	}

	get rows(): number {
		return this.strikes.length;
	}

	static from(columns: Iterable<HeatColumn>): HeatmapGrid {
		const list = [...columns].sort((a, b) => a.timestamp - b.timestamp);
		const grid = new HeatmapGrid();
		const strikes = new Set<number>();
		for (const c of list) for (let i = 0; i < c.strikes.length; i++) strikes.add(c.strikes[i]);
		grid.setStrikes([...strikes]);
		grid.reserve(list.length);
		for (const c of list) grid.append(c);
		return grid;
	}

	/**
	 * The grid `from` would make of the block's columns, filled in one pass: each strike's row is
	 * looked up once for the block, not once per cell (a whole day, 2,340 x 400 cells, took a
	 * 147 ms task column by column). An empty block or times out of order
	 * fall back to appending column by column.
	 */
	static fromBlock(b: HeatBlock): HeatmapGrid {
		const n = b.times.length;
		const k = b.strikes.length;
		let ordered = n > 0;
		for (let c = 1; c < n && ordered; c++) ordered = b.times[c] > b.times[c - 1];
		if (!ordered) return HeatmapGrid.from(columnsOfBlock(b));
		const grid = new HeatmapGrid();
		if (
			b.handOver &&
			b.values instanceof Float32Array &&
			b.values.length === n * k &&
			descending(b.strikes)
		) {
			// The block is laid out as the grid is: its cells become the grid's (a whole day,
			// 936,000 cells, was a 25 ms copy and NaN fill on a cold page).
			grid.takeStrikes(Float64Array.from(b.strikes));
			grid.values = b.values as Float32Array<ArrayBuffer>;
			grid.maxAbs = b.maxAbs ?? largestAbs(b.values);
		} else {
			grid.setStrikes([...new Set(Array.from(b.strikes))]);
			grid.reserve(n);
			grid.copyCells(b);
		}
		grid.reserve(n);
		grid.times.set(b.times);
		grid.spot.set(b.spot);
		grid.zeroGamma.set(b.zeroGamma);
		grid.majorPos.set(b.majorPos);
		grid.majorNeg.set(b.majorNeg);
		grid.length = n;
		grid.revision++;
		return grid;
	}

	/** The block's cells into this grid's rows, each strike's row looked up once for the block. */
	private copyCells(b: HeatBlock): void {
		const n = b.times.length;
		const k = b.strikes.length;
		const rows = this.rows;
		const rowOf = Int32Array.from({ length: k }, (_, i) => this.rowOf.get(b.strikes[i]) ?? -1);
		const values = this.values;
		const src = b.values;
		let maxAbs = 0;
		for (let c = 0; c < n; c++) {
			const from = c * k;
			const base = c * rows;
			for (let i = 0; i < k; i++) {
				const row = rowOf[i];
				if (row < 0) continue;
				const v = src[from + i];
				values[base + row] = v;
				const a = v < 0 ? -v : v;
				if (a > maxAbs && a !== Infinity) maxAbs = a;
			}
		}
		this.maxAbs = maxAbs;
	}

	private setStrikes(strikes: number[]): void {
		const sorted = Float64Array.from(strikes.filter(Number.isFinite)).sort().reverse();
		const old = this.strikes;
		const oldLength = old.length;
		const oldValues = this.values;
		const rows = sorted.length;
		const values = new Float32Array(Math.max(this.times.length, 1) * rows).fill(Number.NaN);
		// Re-seat existing cells under the new row order (a strike appeared mid-session).
		if (oldLength > 0) {
			const map = new Map<number, number>();
			sorted.forEach((s, i) => map.set(s, i));
			for (let r = 0; r < oldLength; r++) {
				const to = map.get(old[r])!;
				for (let c = 0; c < this.length; c++) values[c * rows + to] = oldValues[c * oldLength + r];
			}
		}
		this.values = values;
		this.takeStrikes(sorted);
	}

	/** Rows become `sorted` (distinct, descending) and the price ladder follows; cells untouched. */
	private takeStrikes(sorted: Float64Array): void {
		this.strikes = sorted;
		this.rowOf = new Map();
		sorted.forEach((s, i) => this.rowOf.set(s, i));
		this.buildLadder();
	}

	private buildLadder(): void {
		const s = this.strikes;
		const n = s.length;
		let gap = Infinity;
		for (let i = 1; i < n; i++) gap = Math.min(gap, s[i - 1] - s[i]);
		const span = n > 1 ? s[0] - s[n - 1] : 0;
		this.ladderTop = n > 0 ? s[0] : 0;
		this.ladderStep = n > 1 ? Math.max(gap, span / (MAX_LADDER_ROWS - 1)) : 1;
		const count = n === 0 ? 0 : Math.ceil(span / this.ladderStep - 1e-9) + 1;
		const ladder = new Int32Array(count);
		let j = 0;
		for (let k = 0; k < count; k++) {
			const price = this.priceOfLadderRow(k);
			while (j < n - 1 && Math.abs(s[j + 1] - price) < Math.abs(s[j] - price)) j++;
			ladder[k] = j;
		}
		this.ladder = ladder;
	}

	/** Room for `columns` columns: the per-column lines and the cells, each grown by doubling. */
	private reserve(columns: number): void {
		const rows = this.rows;
		if (columns > this.times.length) {
			let cap = this.times.length;
			while (cap < columns) cap *= 2;
			const grow = (a: Float64Array) => {
				const b = new Float64Array(cap);
				b.set(a.subarray(0, this.length));
				return b;
			};
			this.times = grow(this.times);
			this.spot = grow(this.spot);
			this.zeroGamma = grow(this.zeroGamma);
			this.majorPos = grow(this.majorPos);
			this.majorNeg = grow(this.majorNeg);
		}
		// Cells are checked apart: a handed-over block holds exactly its own columns.
		if (columns * rows > this.values.length) {
			let cap = Math.max(1, Math.floor(this.values.length / Math.max(rows, 1)));
			while (cap < columns) cap *= 2;
			const values = new Float32Array(cap * rows).fill(Number.NaN);
			values.set(this.values.subarray(0, this.length * rows));
			this.values = values;
		}
	}

	/** Adds a calculation; the same timestamp again replaces its column, an older one is dropped. */
	append(c: HeatColumn): AppendResult {
		const last = this.length > 0 ? this.times[this.length - 1] : -Infinity;
		if (c.timestamp < last) return 'older';
		let unknown: number[] | undefined;
		for (let i = 0; i < c.strikes.length; i++) {
			if (!this.rowOf.has(c.strikes[i]) && Number.isFinite(c.strikes[i])) {
				(unknown ??= []).push(c.strikes[i]);
			}
		}
		if (unknown) this.setStrikes([...this.strikes, ...unknown]);
		const replaced = c.timestamp === last;
		const col = replaced ? this.length - 1 : this.length;
		if (!replaced) this.reserve(this.length + 1);
		const rows = this.rows;
		const base = col * rows;
		this.values.fill(Number.NaN, base, base + rows);
		for (let i = 0; i < c.strikes.length; i++) {
			const row = this.rowOf.get(c.strikes[i]);
			if (row === undefined) continue;
			const v = c.values[i];
			this.values[base + row] = v;
			const a = Math.abs(v);
			if (a > this.maxAbs && Number.isFinite(a)) this.maxAbs = a;
		}
		this.times[col] = c.timestamp;
		this.spot[col] = c.spot;
		this.zeroGamma[col] = c.zeroGamma;
		this.majorPos[col] = c.majorPos;
		this.majorNeg[col] = c.majorNeg;
		if (!replaced) this.length++;
		this.revision++;
		return replaced ? 'replaced' : 'appended';
	}

	/** Index of the last column at or before `t` (-1 when `t` precedes the first column). */
	columnAt(t: number): number {
		return lastAtOrBefore(this.times, this.length, t);
	}

	/** Row of the strike nearest `strike` (rows are descending). */
	rowNear(strike: number): number {
		const n = this.rows;
		if (n === 0) return -1;
		let lo = 0;
		let hi = n - 1;
		while (lo < hi) {
			const mid = (lo + hi) >>> 1;
			if (this.strikes[mid] > strike) lo = mid + 1;
			else hi = mid;
		}
		if (lo > 0 && Math.abs(this.strikes[lo - 1] - strike) < Math.abs(this.strikes[lo] - strike)) {
			return lo - 1;
		}
		return lo;
	}

	/** Ladder row (fractional) of a price: linear, the heatmap's vertical scale. */
	ladderRowOf(price: number): number {
		return (this.ladderTop - price) / this.ladderStep;
	}

	value(col: number, row: number): number {
		return this.values[col * this.rows + row];
	}
}

/** Strikes strictly descending and finite (a grid's row order). */
function descending(strikes: ArrayLike<number>): boolean {
	for (let i = 0; i < strikes.length; i++) {
		if (!Number.isFinite(strikes[i]) || (i > 0 && !(strikes[i] < strikes[i - 1]))) return false;
	}
	return true;
}

/** Largest finite |value| (NaN cells skipped). */
function largestAbs(values: Float32Array): number {
	let max = 0;
	for (let i = 0; i < values.length; i++) {
		const v = values[i];
		const a = v < 0 ? -v : v;
		if (a > max && a !== Infinity) max = a;
	}
	return max;
}

/** The block's columns one by one (what fromBlock falls back to). */
function* columnsOfBlock(b: HeatBlock): Generator<HeatColumn> {
	const k = b.strikes.length;
	for (let c = 0; c < b.times.length; c++) {
		yield {
			timestamp: b.times[c],
			spot: b.spot[c],
			zeroGamma: b.zeroGamma[c],
			majorPos: b.majorPos[c],
			majorNeg: b.majorNeg[c],
			strikes: b.strikes,
			values: Array.prototype.slice.call(b.values, c * k, (c + 1) * k) as number[]
		};
	}
}
