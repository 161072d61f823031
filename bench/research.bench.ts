/**
 * Research view costs.
 *
 * 1. Surface buffers in Node: build and in-place update of a 100 strikes x 60 expiries grid
 *    (geometry.ts: positions, normals, colours, indices), and the same update followed by what
 *    the scene does with three.js per new dataset (attribute re-upload flags, draw range; the
 *    GPU upload itself happens at the next frame and is in the orbit numbers' first frame).
 *    Target: under 5 ms per update (median over many updates with changing values).
 * 2. Orbit frame time in headless Chromium (software WebGL: --disable-gpu): the built app with
 *    the embedded service, /SPX/research/iv_mid, the mouse orbiting the camera; per rendered
 *    frame the CPU time of controls + draw calls (data-render-ms) and the interval between frames.
 * 3. JS per route, gzip: after `vite build`, each route's layout and page nodes with their static
 *    imports (Vite client manifest + SvelteKit's route table), plus what the route loads lazily.
 *    three.js (marked by its `__THREE__` global) must be in the research route's lazy chunks and
 *    in no other route's: the bench exits non-zero when it leaks.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { BufferAttribute, BufferGeometry } from 'three';
import { buildSurface, updateSurface, type SurfaceMesh } from '../src/lib/charts/surface/geometry';
import { surfaceGrid, type SurfaceGrid } from '../src/lib/charts/surface/grid';
import {
	launchChromium,
	median,
	quantile as quantileOfSorted,
	root,
	startDashboard
} from './support';

/** The q-quantile of unsorted samples. */
const quantile = (xs: number[], q: number) =>
	quantileOfSorted(
		[...xs].sort((a, b) => a - b),
		q
	);
const ms = (x: number) => x.toFixed(3);

// ---- 1. surface build and update ----------------------------------------------------------
const NX = 100;
const NY = 60;

/** A smile per expiry (plus a few missing wings), shifted by `phase` so each update differs. */
function grid(phase: number): SurfaceGrid {
	const strikes = Array.from({ length: NX }, (_, j) => 5000 + j * 25);
	const dte = Array.from({ length: NY }, (_, i) => i * 3);
	const spot = 6250 + 10 * Math.sin(phase);
	const values = dte.map((d, i) =>
		strikes.map((k, j) => {
			if ((i + j + Math.floor(phase)) % 97 === 0) return null;
			const m = Math.log(k / spot);
			return 0.14 + 0.6 * m * m * Math.exp(-d / 40) - 0.05 * m + 0.01 * Math.sin(phase + i);
		})
	);
	return surfaceGrid({
		ticker: 'SPX',
		metric: 'iv_mid',
		timestamp: 0,
		spot,
		surface: {
			strikes,
			expiries: dte.map((d) => `d${String(d).padStart(3, '0')}`),
			dte,
			values
		}
	});
}

const grids = Array.from({ length: 64 }, (_, i) => grid(i * 0.37));
const buildTimes: number[] = [];
for (let i = 0; i < 200; i++) {
	const t = performance.now();
	buildSurface(grids[i % grids.length], 'strike');
	buildTimes.push(performance.now() - t);
}

const mesh: SurfaceMesh = buildSurface(grids[0], 'strike');
const geometry = new BufferGeometry();
geometry.setAttribute('position', new BufferAttribute(mesh.positions, 3));
geometry.setAttribute('normal', new BufferAttribute(mesh.normals, 3));
geometry.setAttribute('color', new BufferAttribute(mesh.colors, 3));
geometry.setIndex(new BufferAttribute(mesh.indices, 1));
const updateTimes: number[] = [];
const updateThreeTimes: number[] = [];
const buffers = [mesh.positions, mesh.colors, mesh.indices];
for (let i = 0; i < 2000; i++) {
	const g = grids[(i + 1) % grids.length];
	let t = performance.now();
	if (!updateSurface(mesh, g, 'strike')) throw new Error('grid size changed');
	updateTimes.push(performance.now() - t);
	t = performance.now();
	updateSurface(mesh, grids[i % grids.length], 'moneyness');
	(geometry.getAttribute('position') as BufferAttribute).needsUpdate = true;
	(geometry.getAttribute('normal') as BufferAttribute).needsUpdate = true;
	(geometry.getAttribute('color') as BufferAttribute).needsUpdate = true;
	geometry.index!.needsUpdate = true;
	geometry.setDrawRange(0, mesh.indexCount);
	updateThreeTimes.push(performance.now() - t);
}
const sameBuffers =
	buffers[0] === mesh.positions && buffers[1] === mesh.colors && buffers[2] === mesh.indices;
const updateMedian = median(updateThreeTimes);

console.log(
	`### Surface buffers, ${NX} x ${NY} grid (${NX * NY} vertices), Node ${process.version}\n`
);
console.log('| step | median ms | p95 ms | runs |');
console.log('|---|---|---|---|');
console.log(
	`| build (new typed arrays) | ${ms(median(buildTimes))} | ${ms(quantile(buildTimes, 0.95))} | ${buildTimes.length} |`
);
console.log(
	`| update in place (geometry.ts) | ${ms(median(updateTimes))} | ${ms(quantile(updateTimes, 0.95))} | ${updateTimes.length} |`
);
console.log(
	`| update in place + three.js attribute flags | ${ms(updateMedian)} | ${ms(quantile(updateThreeTimes, 0.95))} | ${updateThreeTimes.length} |`
);
console.log(
	`\nTarget under 5 ms per update: ${updateMedian < 5 ? 'met' : 'MISSED'} (${ms(updateMedian)} ms median); buffers reused across updates: ${sameBuffers}.\n`
);

// ---- 3 first (it builds the app the browser part needs): bundles per route ----------------
const build = spawnSync(
	process.execPath,
	[join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'error'],
	{ cwd: root, stdio: ['ignore', 'ignore', 'inherit'] }
);
if (build.status !== 0) {
	console.log('vite build failed');
	process.exit(1);
}

interface ManifestEntry {
	file: string;
	imports?: string[];
	dynamicImports?: string[];
}
const clientDir = join(root, '.svelte-kit/output/client');
const manifest = JSON.parse(readFileSync(join(clientDir, '.vite/manifest.json'), 'utf8')) as Record<
	string,
	ManifestEntry
>;
const serverManifest = readFileSync(
	join(root, '.svelte-kit/output/server/manifest-full.js'),
	'utf8'
);
/** Page routes with their layout and leaf node indices (SvelteKit's route table). */
const routes = serverManifest
	.split(/\n\s*\{\s*\n\s*id: "/)
	.slice(1)
	.flatMap((block) => {
		const id = block.slice(0, block.indexOf('"'));
		const page = /page: \{ layouts: \[([\d,\s]*)\], errors: \[[\d,\s]*\], leaf: (\d+) \}/.exec(
			block.slice(0, block.search(/\n\s*\}/) + 1 || undefined)
		);
		if (!page) return [];
		return [{ id, nodes: [...page[1].split(',').filter((x) => x.trim()), page[2]].map(Number) }];
	});
if (routes.length < 5) throw new Error(`found only ${routes.length} routes in the server manifest`);

/** Files a manifest key loads up front (itself and its static imports, transitively). */
function staticFiles(key: string, out = new Set<string>()): Set<string> {
	const e = manifest[key];
	if (!e || out.has(e.file)) return out;
	out.add(e.file);
	for (const i of e.imports ?? []) staticFiles(i, out);
	return out;
}
/** Files loaded later by dynamic import() from the static set. */
function lazyFiles(keys: string[]): Set<string> {
	const out = new Set<string>();
	const seen = new Set<string>();
	const visit = (key: string) => {
		if (seen.has(key)) return;
		seen.add(key);
		const e = manifest[key];
		if (!e) return;
		for (const d of e.dynamicImports ?? []) {
			// The app entry imports every node lazily: those are the other routes, not this one's.
			if (d.includes('/nodes/') || d.includes('error-template')) continue;
			for (const f of staticFiles(d)) out.add(f);
			visit(d);
		}
		for (const i of e.imports ?? []) visit(i);
	};
	keys.forEach(visit);
	return out;
}
const gz = new Map<string, number>();
const gzipSize = (file: string) => {
	if (!gz.has(file)) gz.set(file, gzipSync(readFileSync(join(clientDir, file))).length);
	return gz.get(file)!;
};
const hasThree = (file: string) =>
	readFileSync(join(clientDir, file), 'utf8').includes('__THREE__');
const kb = (n: number) => (n / 1024).toFixed(1);

const appKeys = Object.keys(manifest).filter(
	(k) => k.endsWith('client-optimized/app.js') || k.endsWith('runtime/client/entry.js')
);
const shared = new Set<string>();
for (const k of appKeys) for (const f of staticFiles(k)) shared.add(f);

console.log('### JS per route after vite build (gzip)\n');
console.log('| route | up front kB | of which not in the app entry kB | lazy kB | three.js |');
console.log('|---|---|---|---|---|');
// The routes that draw a 3D surface (research's IV surface, /chain's surface of an imported
// chain) may load three.js, lazily; every other route must not load it at all.
const SURFACE_ROUTES = [/\/research\//, /^\/chain$/];
let leak = false;
let threeInResearch = false;
for (const r of routes) {
	const nodeKeys = r.nodes.map((n) => `.svelte-kit/generated/client-optimized/nodes/${n}.js`);
	const upFront = new Set(shared);
	const own = new Set<string>();
	for (const k of nodeKeys) {
		for (const f of staticFiles(k)) {
			upFront.add(f);
			if (!shared.has(f)) own.add(f);
		}
	}
	const lazy = [...lazyFiles(nodeKeys)].filter((f) => !upFront.has(f));
	const sum = (files: Iterable<string>) => [...files].reduce((a, f) => a + gzipSize(f), 0);
	const threeUpFront = [...upFront].some(hasThree);
	const threeLazy = lazy.some(hasThree);
	if (r.id.includes('/research/')) threeInResearch = threeLazy && !threeUpFront;
	if (threeUpFront || (threeLazy && !SURFACE_ROUTES.some((re) => re.test(r.id)))) leak = true;
	console.log(
		`| ${r.id} | ${kb(sum(upFront))} | ${kb(sum(own))} | ${kb(sum(lazy))} | ${threeUpFront ? 'up front' : threeLazy ? 'lazy' : '—'} |`
	);
}
console.log(
	`\nthree.js ${threeInResearch ? 'is loaded lazily, by the routes that draw a surface only' : 'is NOT where it should be (research route, lazy)'}${leak ? '; it LEAKS into another route' : ''}.\n`
);

// ---- 2. orbit frame time in Chromium ---------------------------------------------------
const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-research-'));
// The built app with its embedded service (no upstream, key or password from the caller's shell).
const app = await startDashboard({
	GEXDECK_DATA_DIR: dataDir,
	GEXDECK_UPSTREAM: undefined,
	GEXDECK_API_KEY: undefined,
	GEXDECK_RESEARCH_KEY: undefined,
	GEXDECK_PASSWORD: undefined
});
const base = app.base;
try {
	const browser = await launchChromium();
	const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
	await page.goto(`${base}/SPX/research/iv_mid`);
	const canvas = page.getByTestId('surface-canvas');
	await page.waitForFunction(
		() =>
			Number(document.querySelector<HTMLElement>('[data-testid=surface-canvas]')?.dataset.frames) >
			0,
		undefined,
		{ timeout: 60_000 }
	);
	const vertices = await canvas.getAttribute('data-vertices');
	// Record every frame's CPU time and arrival while the mouse orbits.
	await page.evaluate(() => {
		const el = document.querySelector<HTMLElement>('[data-testid=surface-canvas]')!;
		const w = window as unknown as { frameLog: [number, number][] };
		w.frameLog = [];
		new MutationObserver(() =>
			w.frameLog.push([performance.now(), Number(el.dataset.renderMs)])
		).observe(el, { attributeFilter: ['data-frames'] });
	});
	const box = (await canvas.boundingBox())!;
	await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.5);
	await page.mouse.down();
	for (let i = 0; i < 240; i++) {
		const a = (i / 240) * Math.PI * 2;
		await page.mouse.move(
			box.x + box.width * (0.5 + 0.2 * Math.cos(a)),
			box.y + box.height * (0.5 + 0.15 * Math.sin(a))
		);
	}
	await page.mouse.up();
	await page.waitForTimeout(500);
	const log = await page.evaluate(
		() => (window as unknown as { frameLog: [number, number][] }).frameLog
	);
	await browser.close();
	const cpu = log.map((f) => f[1]);
	const intervals = log.slice(1).map((f, i) => f[0] - log[i][0]);
	console.log(
		`### Orbit in headless Chromium (--disable-gpu: software WebGL), ${vertices} vertices\n`
	);
	console.log('| measure | median ms | p95 ms | frames |');
	console.log('|---|---|---|---|');
	console.log(
		`| CPU per rendered frame (controls + draw) | ${ms(median(cpu))} | ${ms(quantile(cpu, 0.95))} | ${cpu.length} |`
	);
	console.log(
		`| interval between frames while orbiting | ${ms(median(intervals))} | ${ms(quantile(intervals, 0.95))} | ${intervals.length} |`
	);
	console.log('');
} finally {
	await app.stop();
	rmSync(dataDir, { recursive: true, force: true });
}

if (leak || !threeInResearch) process.exit(1);
