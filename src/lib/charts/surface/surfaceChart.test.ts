import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { colorScale, legendStops, MISSING_RGB } from './colorScale';
import { surfaceAxes } from './axes';
import { buildSurface, toBoxZ, updateSurface, vertexCell } from './geometry';
import { surfaceGrid, SurfaceShapeError, type SurfacePayload } from './grid';

function payload(values: (number | null)[][], strikes?: number[], dte?: number[]): SurfacePayload {
	const ny = values.length;
	const nx = values[0]?.length ?? 0;
	const d = dte ?? Array.from({ length: ny }, (_, i) => i * 7);
	return {
		ticker: 'SPX',
		metric: 'iv_mid',
		timestamp: 1_795_444_200,
		spot: 100,
		surface: {
			strikes: strikes ?? Array.from({ length: nx }, (_, j) => 90 + j * 5),
			expiries: d.map((x) => new Date(Date.UTC(2026, 10, 23 + x)).toISOString().slice(0, 10)),
			dte: d,
			values
		}
	};
}

const gridArb = fc
	.record({ nx: fc.integer({ min: 2, max: 12 }), ny: fc.integer({ min: 2, max: 8 }) })
	.chain(({ nx, ny }) =>
		fc.array(
			fc.array(fc.option(fc.double({ min: 0.01, max: 3, noNaN: true }), { freq: 4, nil: null }), {
				minLength: nx,
				maxLength: nx
			}),
			{ minLength: ny, maxLength: ny }
		)
	);

describe('colour scale', () => {
	it('is monotone along the ramp, clamps outside the domain and greys missing values', () => {
		const s = colorScale(0.1, 0.5);
		expect(s.t(0.1)).toBe(0);
		expect(s.t(0.5)).toBe(1);
		expect(s.t(0.3)).toBeCloseTo(0.5);
		expect(s.t(-4)).toBe(0);
		expect(s.t(9)).toBe(1);
		const a = new Float32Array(3);
		const b = new Float32Array(3);
		s.write(0.1, a, 0);
		s.write(0.5, b, 0);
		expect([...a]).not.toEqual([...b]);
		s.write(NaN, a, 0);
		expect([...a]).toEqual([...MISSING_RGB]);
		expect(s.css(0.1)).toMatch(/^rgb\(\d+ \d+ \d+\)$/);
		expect(s.css(0.1)).not.toBe(s.css(0.5));
		// The legend uses the same colours as the mesh.
		const stops = legendStops(s, 5);
		expect(stops.map((x) => x.value)).toEqual([0.1, 0.2, 0.30000000000000004, 0.4, 0.5]);
		expect(stops[0].color).toBe(s.css(0.1));
		expect(stops[4].color).toBe(s.css(0.5));
	});

	it('a flat domain maps everything to the middle; a bad domain is refused', () => {
		expect(colorScale(0.2, 0.2).t(0.2)).toBe(0.5);
		expect(() => colorScale(1, 0)).toThrow(RangeError);
		expect(() => colorScale(NaN, 1)).toThrow(RangeError);
	});
});

describe('surface grid', () => {
	it('keeps nulls as NaN and the range of the values', () => {
		const g = surfaceGrid(
			payload([
				[0.2, null],
				[0.3, 0.1]
			])
		);
		expect(g.filled).toBe(3);
		expect(g.min).toBeCloseTo(0.1);
		expect(g.max).toBeCloseTo(0.3);
		expect(Number.isNaN(g.values[1])).toBe(true);
	});

	it('fills interior gaps of an expiry along the strike, never its ends', () => {
		const g = surfaceGrid(
			payload([[null, 0.2, null, null, 0.5, null]], [90, 95, 100, 105, 110, 115])
		);
		expect([...g.values].map((v) => (Number.isNaN(v) ? null : +v.toFixed(4)))).toEqual([
			null,
			0.2,
			0.3,
			0.4,
			0.5,
			null
		]);
		expect([...g.interpolated]).toEqual([0, 0, 1, 1, 0, 0]);
		expect(g.filled).toBe(2);
	});

	it('refuses malformed surfaces with a reason', () => {
		expect(() => surfaceGrid({ ...payload([[1]]), surface: undefined } as never)).toThrow(
			SurfaceShapeError
		);
		expect(() => surfaceGrid(payload([[1, 2], [3]]))).toThrow(/row 1 has 1 values for 2 strikes/);
		expect(() => surfaceGrid(payload([[1, 2]], [5, 5]))).toThrow(/ascending/);
	});
});

describe('surface geometry', () => {
	it('one vertex per cell in the box, coloured by value, triangles only over filled cells', () => {
		fc.assert(
			fc.property(gridArb, (values) => {
				const grid = surfaceGrid(payload(values));
				const mesh = buildSurface(grid, 'strike');
				const { nx, ny, positions, colors, indices, indexCount } = mesh;
				expect(positions.length).toBe(nx * ny * 3);
				expect(colors.length).toBe(nx * ny * 3);
				expect(indexCount % 3).toBe(0);
				const rgb = new Float32Array(3);
				for (let k = 0; k < nx * ny; k++) {
					const { row, col } = vertexCell(mesh, k);
					expect(row * nx + col).toBe(k);
					const [x, y, z] = positions.subarray(k * 3, k * 3 + 3);
					expect(x).toBeGreaterThanOrEqual(-1 - 1e-6);
					expect(x).toBeLessThanOrEqual(1 + 1e-6);
					expect(z).toBeGreaterThanOrEqual(-1 - 1e-6);
					expect(z).toBeLessThanOrEqual(1 + 1e-6);
					expect(y).toBeGreaterThanOrEqual(0);
					expect(y).toBeLessThanOrEqual(1 + 1e-6);
					mesh.scale.write(grid.values[k], rgb, 0);
					expect([...colors.subarray(k * 3, k * 3 + 3)]).toEqual([...rgb]);
				}
				// Every triangle joins three filled cells, and every fully filled cell has two.
				let full = 0;
				for (let i = 0; i < ny - 1; i++) {
					for (let j = 0; j < nx - 1; j++) {
						const cell = [i * nx + j, i * nx + j + 1, (i + 1) * nx + j, (i + 1) * nx + j + 1];
						if (cell.every((c) => Number.isFinite(grid.values[c]))) full++;
					}
				}
				for (let n = 0; n < indexCount; n++) {
					expect(Number.isFinite(grid.values[indices[n]])).toBe(true);
				}
				expect(indexCount).toBeGreaterThanOrEqual(full * 6);
			}),
			{ numRuns: 200 }
		);
	});

	it('the highest value is at the top of the box and the lowest at the floor', () => {
		const grid = surfaceGrid(
			payload([
				[0.2, 0.4],
				[0.3, 0.1]
			])
		);
		const mesh = buildSurface(grid, 'strike');
		const ys = [1, 4, 7, 10].map((o) => mesh.positions[o]);
		expect(ys[1]).toBeCloseTo((0.4 - 0.1) / 0.3);
		expect(Math.max(...ys)).toBeCloseTo(1);
		expect(Math.min(...ys)).toBeCloseTo(0);
		// Nearest expiry in front, the strike axis left to right.
		expect(mesh.positions[2]).toBeCloseTo(1);
		expect(mesh.positions[8]).toBeCloseTo(-1);
		expect(mesh.positions[0]).toBeCloseTo(-1);
		expect(mesh.positions[3]).toBeCloseTo(1);
		expect(mesh.indexCount).toBe(6);
	});

	it('updates in place: same buffers, same content as a fresh build', () => {
		fc.assert(
			fc.property(gridArb, fc.double({ min: 0.5, max: 2, noNaN: true }), (values, f) => {
				const first = surfaceGrid(payload(values));
				const mesh = buildSurface(first, 'strike');
				const buffers = [mesh.positions, mesh.colors, mesh.indices];
				const next = surfaceGrid(
					payload(values.map((r) => r.map((v) => (v === null ? 0.5 : v * f))))
				);
				expect(updateSurface(mesh, next, 'moneyness')).toBe(true);
				expect([mesh.positions, mesh.colors, mesh.indices]).toEqual(buffers);
				expect(mesh.positions).toBe(buffers[0]);
				expect(mesh.colors).toBe(buffers[1]);
				expect(mesh.indices).toBe(buffers[2]);
				const fresh = buildSurface(next, 'moneyness');
				expect(mesh.positions).toEqual(fresh.positions);
				expect(mesh.normals).toEqual(fresh.normals);
				expect(mesh.colors).toEqual(fresh.colors);
				expect(mesh.indexCount).toBe(fresh.indexCount);
				expect(mesh.indices.subarray(0, mesh.indexCount)).toEqual(
					fresh.indices.subarray(0, fresh.indexCount)
				);
			}),
			{ numRuns: 100 }
		);
	});

	it('normals are unit, point up, and lean against the slope', () => {
		// IV rising with strike: y grows with x, so the normal leans towards -x.
		const grid = surfaceGrid(
			payload([
				[0.1, 0.2, 0.3],
				[0.1, 0.2, 0.3]
			])
		);
		const mesh = buildSurface(grid, 'strike');
		for (let k = 0; k < 6; k++) {
			const [x, y, z] = mesh.normals.subarray(k * 3, k * 3 + 3);
			expect(Math.hypot(x, y, z)).toBeCloseTo(1, 5);
			expect(y).toBeGreaterThan(0);
			expect(x).toBeLessThan(0);
			expect(z).toBeCloseTo(0, 6);
		}
		// Triangles wind counter-clockwise seen from above (front faces look up).
		const p = mesh.positions;
		const [a, b, c] = mesh.indices;
		const ab = [p[b * 3] - p[a * 3], p[b * 3 + 2] - p[a * 3 + 2]];
		const ac = [p[c * 3] - p[a * 3], p[c * 3 + 2] - p[a * 3 + 2]];
		// y component of (b - a) x (c - a) = dz_ab * dx_ac - dx_ab * dz_ac
		expect(ab[1] * ac[0] - ab[0] * ac[1]).toBeGreaterThan(0);
	});

	it('a grid of another size is not forced into old buffers', () => {
		const mesh = buildSurface(
			surfaceGrid(
				payload([
					[1, 2],
					[3, 4]
				])
			),
			'strike'
		);
		const before = mesh.positions;
		expect(
			updateSurface(
				mesh,
				surfaceGrid(
					payload([
						[1, 2, 3],
						[3, 4, 5]
					])
				),
				'strike'
			)
		).toBe(false);
		expect(mesh.positions).toBe(before);
		expect(mesh.nx).toBe(2);
	});
});

describe('surface axes', () => {
	it('labels strikes or moneyness, DTE marks without overlaps, and values', () => {
		const grid = surfaceGrid({
			...payload(
				[
					[0.2, 0.25, 0.3],
					[0.22, 0.24, 0.28],
					[0.21, 0.23, 0.27]
				],
				[6000, 7000, 8000],
				[0, 7, 88]
			),
			spot: 7000
		});
		const mesh = buildSurface(grid, 'strike');
		const axes = surfaceAxes(mesh.frame, (v) => `${(v * 100).toFixed(0)}%`);
		expect(axes.x.map((t) => t.label)).toContain('7,000');
		expect(axes.x[0].at).toBeCloseTo(-1);
		expect(axes.z[0]).toEqual({ at: 1, label: '0d' });
		expect(axes.z.map((t) => t.label)).toContain('88d');
		for (let i = 1; i < axes.z.length; i++) {
			expect(axes.z[i - 1].at - axes.z[i].at).toBeGreaterThanOrEqual(0.18);
		}
		expect(axes.y.map((t) => t.label)).toContain('24%');
		const m = surfaceAxes(buildSurface(grid, 'moneyness').frame, String);
		expect(m.x.map((t) => t.label)).toContain('100%');
		expect(toBoxZ(mesh.frame, 88)).toBeCloseTo(-1);
	});
});
