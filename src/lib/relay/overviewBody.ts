/**
 * The day overview body: a whole day of one chain stream at a fixed step, for one metric, as the
 * columns a whole-day view draws (GET /history/<ticker>/<stream>/overview, sent gzip-encoded).
 *
 *   'GXO2' [u32 LE header length][header JSON, UTF-8][zero padding to a multiple of 8]
 *   [f64 time] x n   [f32 spot] x n   [f32 zero gamma] x n   [f32 major +] x n   [f32 major -] x n
 *   [f32 column scale] x n   [i8 value] x (n x rows), column after column, rows in header order
 *
 * Rows are the union of the day's strikes, highest first. A cell is value = i8 x the column's
 * scale (its largest |value| / 127), so a cell is within 1/254 of its column's largest |value|
 * (OVERVIEW_CELL_ERROR). The heatmap colours a cell with one of 256 colours across
 * ±(the day's largest |value|), 1/255 of that range a colour: a cell is off by at most half a
 * colour step, and a day of noise (23,400 x 400, 2,340 steps) is under 1 MB gzip where int16
 * cells were 1.47 MB. A strike a column did not have is -128 (NaN). Pure and shared: the server
 * encodes, the page decodes.
 */

export const OVERVIEW_MAGIC = 'GXO2';
const MISSING = -128;
const FULL = 127;
/** Largest |decoded - value| of a cell, as a fraction of its column's largest |value|. */
export const OVERVIEW_CELL_ERROR = 1 / (2 * FULL);

export type OverviewMetric = 'vol' | 'oi';

export interface OverviewHeader {
	ticker: string;
	stream: string;
	day: string;
	metric: OverviewMetric;
	/** Seconds between steps: a row is the first calculation of its step. */
	step: number;
	columns: number;
	/** Union of the day's strikes, descending (row 0 at the top). */
	strikes: number[];
}

/** One column as the encoder takes it (a row of the server's overview, one metric chosen). */
export interface OverviewColumn {
	timestamp: number;
	spot: number;
	zeroGamma: number;
	majorPos: number;
	majorNeg: number;
	strikes: ArrayLike<number>;
	values: ArrayLike<number>;
}

export interface DecodedOverview {
	header: OverviewHeader;
	times: Float64Array;
	spot: Float32Array;
	zeroGamma: Float32Array;
	majorPos: Float32Array;
	majorNeg: Float32Array;
	/** values[col * rows + row]; NaN where the column had no such strike. */
	values: Float32Array;
	/** Largest |value| of the cells (0 for none): the heatmap's colour range, found while decoding. */
	maxAbs: number;
}

const pad8 = (n: number) => (n + 7) & ~7;

export function encodeOverviewBody(
	meta: Omit<OverviewHeader, 'columns' | 'strikes'>,
	columns: readonly OverviewColumn[]
): Uint8Array {
	const union = new Set<number>();
	// A day's columns mostly share one strike list (the server's rows share the array itself).
	let listed: ArrayLike<number> | undefined;
	for (const c of columns) {
		if (sameStrikes(listed, c.strikes)) continue;
		listed = c.strikes;
		for (let i = 0; i < c.strikes.length; i++) union.add(c.strikes[i]);
	}
	const strikes = [...union].filter(Number.isFinite).sort((a, b) => b - a);
	const rowOf = new Map(strikes.map((s, i) => [s, i]));
	const header: OverviewHeader = { ...meta, columns: columns.length, strikes };
	const json = new TextEncoder().encode(JSON.stringify(header));
	const n = columns.length;
	const rows = strikes.length;
	const start = pad8(8 + json.length);
	const out = new Uint8Array(start + n * 8 + n * 4 * 5 + n * rows);
	out.set(new TextEncoder().encode(OVERVIEW_MAGIC), 0);
	const view = new DataView(out.buffer);
	view.setUint32(4, json.length, true);
	out.set(json, 8);
	let at = start;
	for (const c of columns) view.setFloat64((at += 8) - 8, c.timestamp, true);
	for (const key of ['spot', 'zeroGamma', 'majorPos', 'majorNeg'] as const) {
		for (const c of columns) view.setFloat32((at += 4) - 4, c[key], true);
	}
	const scales = columns.map((c) => {
		let max = 0;
		for (let i = 0; i < c.values.length; i++) {
			const a = Math.abs(c.values[i]);
			if (a > max && Number.isFinite(a)) max = a;
		}
		return max / FULL;
	});
	for (const s of scales) view.setFloat32((at += 4) - 4, s, true);
	const cells = new Int8Array(out.buffer, at, n * rows).fill(MISSING);
	// Columns of a day mostly share one strike list: its rows are looked up once, not per cell.
	let seen: ArrayLike<number> | undefined;
	let rowsOf = new Int32Array(0);
	columns.forEach((c, col) => {
		if (!sameStrikes(seen, c.strikes)) {
			seen = c.strikes;
			rowsOf = Int32Array.from({ length: c.strikes.length }, (_, i) =>
				rowOf.has(c.strikes[i]) ? rowOf.get(c.strikes[i])! : -1
			);
		}
		const scale = Math.fround(scales[col]);
		const base = col * rows;
		for (let i = 0; i < rowsOf.length; i++) {
			const v = c.values[i];
			if (rowsOf[i] < 0 || !Number.isFinite(v)) continue;
			// Clamped: a rounded f32 scale can put the column's largest value a hair past 127.
			cells[base + rowsOf[i]] =
				scale > 0 ? Math.max(-FULL, Math.min(FULL, Math.round(v / scale))) : 0;
		}
	});
	return out;
}

function sameStrikes(a: ArrayLike<number> | undefined, b: ArrayLike<number>): boolean {
	if (a === b) return true;
	if (!a || a.length !== b.length) return false;
	for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
	return true;
}

export class OverviewBodyError extends Error {}

export function decodeOverviewBody(bytes: Uint8Array): DecodedOverview {
	if (bytes.length < 8 || new TextDecoder().decode(bytes.subarray(0, 4)) !== OVERVIEW_MAGIC) {
		throw new OverviewBodyError('not a day overview');
	}
	const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	const jsonLength = view.getUint32(4, true);
	if (8 + jsonLength > bytes.length) throw new OverviewBodyError('overview header cut short');
	const header = JSON.parse(
		new TextDecoder().decode(bytes.subarray(8, 8 + jsonLength))
	) as OverviewHeader;
	const n = header.columns;
	const rows = header.strikes.length;
	let at = pad8(8 + jsonLength);
	if (at + n * 28 + n * rows !== bytes.length) {
		throw new OverviewBodyError('overview body is not the size its header says');
	}
	const times = new Float64Array(n);
	for (let i = 0; i < n; i++, at += 8) times[i] = view.getFloat64(at, true);
	const f32 = () => {
		const a = new Float32Array(n);
		for (let i = 0; i < n; i++, at += 4) a[i] = view.getFloat32(at, true);
		return a;
	};
	const spot = f32();
	const zeroGamma = f32();
	const majorPos = f32();
	const majorNeg = f32();
	const scales = f32();
	// The cells read as bytes in place (no per-cell DataView call: a day is ~936,000 of them).
	const cells = new Int8Array(bytes.buffer, bytes.byteOffset + at, n * rows);
	const values = new Float32Array(n * rows);
	let maxAbs = 0;
	for (let col = 0, k = 0; col < n; col++) {
		const scale = scales[col];
		let top = 0;
		for (const end = k + rows; k < end; k++) {
			const q = cells[k];
			if (q === MISSING) values[k] = Number.NaN;
			else {
				values[k] = q * scale;
				const a = q < 0 ? -q : q;
				if (a > top) top = a;
			}
		}
		// The column's largest cell as stored (a Float32Array rounds q x scale).
		const largest = Math.abs(Math.fround(top * scale));
		if (largest > maxAbs && largest !== Infinity) maxAbs = largest;
	}
	return { header, times, spot, zeroGamma, majorPos, majorNeg, values, maxAbs };
}
