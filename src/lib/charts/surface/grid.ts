/**
 * A research surface (`view=surface`: strikes x expiries with a value or null per cell) as a
 * dense grid with typed arrays: values row-major by expiry (row) then strike (column), NaN
 * where the service has no value. Checked on the way in, so a malformed payload is an error
 * message rather than a broken mesh.
 */

export interface SurfacePayload {
	ticker: string;
	metric: string;
	timestamp: number;
	spot: number;
	surface: { strikes: number[]; expiries: string[]; dte: number[]; values: (number | null)[][] };
}

export interface SurfaceGrid {
	ticker: string;
	metric: string;
	timestamp: number;
	spot: number;
	/** Column coordinates, ascending. */
	strikes: Float64Array;
	/** Row labels (YYYY-MM-DD), ascending. */
	expiries: string[];
	/** Calendar days to each expiry. */
	dte: Float64Array;
	/** expiries.length x strikes.length, NaN = no value. */
	values: Float32Array;
	/**
	 * 1 where a value was interpolated: expiries list strikes at different spacings (the 0DTE
	 * every 25 points, later ones every 50), so on the union of strikes an expiry has gaps inside
	 * its own range. They are filled linearly along the strike so the surface is one sheet; the
	 * ends of an expiry's range are never extended.
	 */
	interpolated: Uint8Array;
	/** Range of the finite values (NaN when there is none). */
	min: number;
	max: number;
	/** Cells with a value. */
	filled: number;
}

export class SurfaceShapeError extends Error {}

function isAscending(a: ArrayLike<number>): boolean {
	for (let i = 1; i < a.length; i++) if (!(a[i] > a[i - 1])) return false;
	return true;
}

export function surfaceGrid(payload: SurfacePayload): SurfaceGrid {
	const s = payload?.surface;
	if (!s || !Array.isArray(s.strikes) || !Array.isArray(s.expiries) || !Array.isArray(s.values)) {
		throw new SurfaceShapeError('the response has no surface (strikes, expiries, values)');
	}
	const nx = s.strikes.length;
	const ny = s.expiries.length;
	if (!Array.isArray(s.dte) || s.dte.length !== ny || s.values.length !== ny) {
		throw new SurfaceShapeError(
			`surface rows disagree: ${ny} expiries, ${s.dte?.length} dte, ${s.values.length} value rows`
		);
	}
	const strikes = Float64Array.from(s.strikes);
	const dte = Float64Array.from(s.dte);
	if (!strikes.every(Number.isFinite) || !isAscending(strikes)) {
		throw new SurfaceShapeError('surface strikes must be finite and ascending');
	}
	if (!dte.every(Number.isFinite) || !isAscending(dte)) {
		throw new SurfaceShapeError('surface days to expiry must be finite and ascending');
	}
	const values = new Float32Array(nx * ny);
	let min = Infinity;
	let max = -Infinity;
	let filled = 0;
	for (let i = 0; i < ny; i++) {
		const row = s.values[i];
		if (!Array.isArray(row) || row.length !== nx) {
			throw new SurfaceShapeError(`surface row ${i} has ${row?.length} values for ${nx} strikes`);
		}
		for (let j = 0; j < nx; j++) {
			const v = row[j];
			if (v === null || !Number.isFinite(v)) {
				values[i * nx + j] = NaN;
				continue;
			}
			// The range is taken from the stored float32, so every vertex lies within it.
			values[i * nx + j] = v;
			const f = values[i * nx + j];
			if (f < min) min = f;
			if (f > max) max = f;
			filled++;
		}
	}
	const interpolated = fillGaps(values, strikes, nx, ny);
	return {
		ticker: payload.ticker,
		metric: payload.metric,
		timestamp: payload.timestamp,
		spot: payload.spot,
		strikes,
		expiries: [...s.expiries],
		dte,
		values,
		interpolated,
		min: filled ? min : NaN,
		max: filled ? max : NaN,
		filled
	};
}

/** Linear interpolation across each row's interior gaps; returns the flags of filled cells. */
function fillGaps(values: Float32Array, strikes: Float64Array, nx: number, ny: number): Uint8Array {
	const flags = new Uint8Array(nx * ny);
	for (let i = 0; i < ny; i++) {
		const row = i * nx;
		let prev = -1;
		for (let j = 0; j < nx; j++) {
			if (!Number.isFinite(values[row + j])) continue;
			if (prev >= 0 && j - prev > 1) {
				const a = values[row + prev];
				const b = values[row + j];
				const span = strikes[j] - strikes[prev];
				for (let g = prev + 1; g < j; g++) {
					values[row + g] = a + ((b - a) * (strikes[g] - strikes[prev])) / span;
					flags[row + g] = 1;
				}
			}
			prev = j;
		}
	}
	return flags;
}
