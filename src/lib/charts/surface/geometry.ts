/**
 * Surface grid -> mesh buffers for a three.js BufferGeometry: positions and vertex colours as
 * Float32Arrays (one vertex per grid cell), triangle indices as a Uint32Array sized for the full
 * grid with `indexCount` saying how many are used (cells without a value are left out).
 *
 * The mesh lives in a fixed box so the camera never needs refitting: x (strike or moneyness) and
 * z (days to expiry, square-root scale so the crowded front expiries get room) span -1..1, y
 * (the value) spans 0..1. `updateSurface` rewrites the same arrays when the grid keeps its size,
 * so a refresh re-uploads buffers instead of allocating a new geometry.
 */
import { colorScale, type ColorScale } from './colorScale';
import type { SurfaceGrid } from './grid';
import type { SurfaceAxis } from '$lib/state/researchView';

export interface SurfaceFrame {
	axis: SurfaceAxis;
	/** Column coordinate range (strike, or strike / spot). */
	xMin: number;
	xMax: number;
	/** Days to expiry range. */
	dteMin: number;
	dteMax: number;
	/** Value range mapped to y 0..1 (and to the colour ramp). */
	lo: number;
	hi: number;
}

export interface SurfaceMesh {
	nx: number;
	ny: number;
	positions: Float32Array;
	/** Unit normals of the height field (y up), for lighting; computed here, not by three.js. */
	normals: Float32Array;
	colors: Float32Array;
	indices: Uint32Array;
	/** Indices in use (a multiple of 3). */
	indexCount: number;
	frame: SurfaceFrame;
	scale: ColorScale;
}

/** The column coordinate of strike `k` on `axis`. */
export function columnCoordinate(k: number, spot: number, axis: SurfaceAxis): number {
	return axis === 'moneyness' ? k / spot : k;
}

export function surfaceFrame(grid: SurfaceGrid, axis: SurfaceAxis): SurfaceFrame {
	const nx = grid.strikes.length;
	const ny = grid.dte.length;
	const flat = !(grid.filled > 0);
	return {
		axis,
		xMin: nx ? columnCoordinate(grid.strikes[0], grid.spot, axis) : 0,
		xMax: nx ? columnCoordinate(grid.strikes[nx - 1], grid.spot, axis) : 1,
		dteMin: ny ? grid.dte[0] : 0,
		dteMax: ny ? grid.dte[ny - 1] : 1,
		lo: flat ? 0 : grid.min,
		hi: flat ? 1 : grid.max
	};
}

/** Box coordinates of the frame's data coordinates, and back (for labels and hover). */
export function toBoxX(f: SurfaceFrame, x: number): number {
	return f.xMax === f.xMin ? 0 : -1 + (2 * (x - f.xMin)) / (f.xMax - f.xMin);
}
export function toBoxZ(f: SurfaceFrame, dte: number): number {
	const a = Math.sqrt(Math.max(0, f.dteMin));
	const b = Math.sqrt(Math.max(0, f.dteMax));
	// Nearest expiry in front (z = +1), the furthest at the back.
	return b === a ? 0 : 1 - (2 * (Math.sqrt(Math.max(0, dte)) - a)) / (b - a);
}
export function toBoxY(f: SurfaceFrame, value: number): number {
	return f.hi === f.lo ? 0.5 : (value - f.lo) / (f.hi - f.lo);
}

/** Triangles the grid can have: two per cell. */
function maxIndices(nx: number, ny: number): number {
	return Math.max(0, nx - 1) * Math.max(0, ny - 1) * 6;
}

function fill(mesh: SurfaceMesh, grid: SurfaceGrid, axis: SurfaceAxis): void {
	const { nx, ny, positions, normals, colors, indices } = mesh;
	const frame = surfaceFrame(grid, axis);
	const scale =
		mesh.scale.lo === frame.lo && mesh.scale.hi === frame.hi
			? mesh.scale
			: colorScale(frame.lo, frame.hi);
	const values = grid.values;
	const xs = new Float32Array(nx);
	for (let j = 0; j < nx; j++) {
		xs[j] = toBoxX(frame, columnCoordinate(grid.strikes[j], grid.spot, axis));
	}
	for (let i = 0; i < ny; i++) {
		const z = toBoxZ(frame, grid.dte[i]);
		for (let j = 0; j < nx; j++) {
			const k = i * nx + j;
			const v = values[k];
			const o = k * 3;
			positions[o] = xs[j];
			// A cell without a value sits on the floor; no triangle uses it, so it is not drawn.
			positions[o + 1] = Number.isFinite(v) ? toBoxY(frame, v) : 0;
			positions[o + 2] = z;
			scale.write(v, colors, o);
		}
	}
	let n = 0;
	for (let i = 0; i < ny - 1; i++) {
		for (let j = 0; j < nx - 1; j++) {
			const a = i * nx + j;
			const b = a + 1;
			const c = a + nx;
			const d = c + 1;
			const va = Number.isFinite(values[a]);
			const vb = Number.isFinite(values[b]);
			const vc = Number.isFinite(values[c]);
			const vd = Number.isFinite(values[d]);
			const count = +va + +vb + +vc + +vd;
			// Counter-clockwise seen from above, so front faces look up like the normals.
			if (count === 4) {
				indices[n++] = a;
				indices[n++] = b;
				indices[n++] = c;
				indices[n++] = b;
				indices[n++] = d;
				indices[n++] = c;
			} else if (count === 3) {
				// Ragged edges (an expiry with fewer strikes) keep the half cell they have.
				if (va) indices[n++] = a;
				if (vb) indices[n++] = b;
				if (vd) indices[n++] = d;
				if (vc) indices[n++] = c;
			}
		}
	}
	heightFieldNormals(positions, values, nx, ny, normals);
	// Unused tail: degenerate triangles, so nothing stale can ever be drawn or hit.
	indices.fill(0, n);
	mesh.indexCount = n;
	mesh.frame = frame;
	mesh.scale = scale;
}

/**
 * Normals of y = f(x, z) by central differences over the neighbours that have a value:
 * n = (-dy/dx, 1, -dy/dz), normalised. Cheaper than three.js's per-triangle accumulation and the
 * same on a regular grid.
 */
function heightFieldNormals(
	positions: Float32Array,
	values: Float32Array,
	nx: number,
	ny: number,
	out: Float32Array
): void {
	const ok = (k: number) => Number.isFinite(values[k]);
	for (let i = 0; i < ny; i++) {
		for (let j = 0; j < nx; j++) {
			const k = i * nx + j;
			let gx = 0;
			let gz = 0;
			if (ok(k)) {
				const l = j > 0 && ok(k - 1) ? k - 1 : k;
				const r = j < nx - 1 && ok(k + 1) ? k + 1 : k;
				if (l !== r) {
					gx =
						(positions[r * 3 + 1] - positions[l * 3 + 1]) / (positions[r * 3] - positions[l * 3]);
				}
				const u = i > 0 && ok(k - nx) ? k - nx : k;
				const v = i < ny - 1 && ok(k + nx) ? k + nx : k;
				if (u !== v) {
					const dz = positions[v * 3 + 2] - positions[u * 3 + 2];
					if (dz !== 0) gz = (positions[v * 3 + 1] - positions[u * 3 + 1]) / dz;
				}
			}
			const inv = 1 / Math.sqrt(gx * gx + 1 + gz * gz);
			out[k * 3] = -gx * inv;
			out[k * 3 + 1] = inv;
			out[k * 3 + 2] = -gz * inv;
		}
	}
}

/** Fresh buffers for `grid`. */
export function buildSurface(grid: SurfaceGrid, axis: SurfaceAxis): SurfaceMesh {
	const nx = grid.strikes.length;
	const ny = grid.dte.length;
	const frame = surfaceFrame(grid, axis);
	const mesh: SurfaceMesh = {
		nx,
		ny,
		positions: new Float32Array(nx * ny * 3),
		normals: new Float32Array(nx * ny * 3),
		colors: new Float32Array(nx * ny * 3),
		indices: new Uint32Array(maxIndices(nx, ny)),
		indexCount: 0,
		frame,
		scale: colorScale(frame.lo, frame.hi)
	};
	fill(mesh, grid, axis);
	return mesh;
}

/**
 * Rewrites `mesh` for `grid` in place when the grid has the same number of strikes and
 * expiries; returns false (mesh untouched) when it does not, and the caller builds anew.
 */
export function updateSurface(mesh: SurfaceMesh, grid: SurfaceGrid, axis: SurfaceAxis): boolean {
	if (grid.strikes.length !== mesh.nx || grid.dte.length !== mesh.ny) return false;
	fill(mesh, grid, axis);
	return true;
}

/** Grid cell (row = expiry, column = strike) of a vertex index. */
export function vertexCell(mesh: SurfaceMesh, vertex: number): { row: number; col: number } {
	return { row: Math.floor(vertex / mesh.nx), col: vertex % mesh.nx };
}
