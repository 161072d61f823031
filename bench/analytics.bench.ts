/**
 * Analytics engine benchmark: an SPX-like chain of ~12,000 contracts (25 expiries incl. a 0DTE,
 * 5-point strikes near the money, calls and puts with different IVs so nothing nets). Times,
 * in one run: greeks + every per-strike exposure, both zero-gamma roots (every root refined, and
 * nearest-only as the service uses it), the whole tick, the service's three categories from one
 * greeks pass, and a straightforward 60-point grid method
 * for zero gamma on the same chain (ratio and its root error shown), and the per-second kernel
 * (GammaKernel: greeks and bumps from per-tick constants, nearest roots by an outward walk), cold
 * and warm-started from the previous second's roots after a 0.5-point spot move.
 */
import {
	categorySnapshot,
	computeExposures,
	computeGreeks,
	createGreekArrays,
	expiryBuckets,
	GammaKernel,
	strikeLadder,
	syntheticChain,
	zeroGamma,
	type ChainArrays,
	type GreekArrays
} from '../src/lib/analytics/index';
import { bruteProfile } from '../src/lib/analytics/gammaKernel.test-support';

const RUNS = 41;

function median(xs: number[]): number {
	const s = [...xs].sort((a, b) => a - b);
	return s[s.length >> 1];
}
function p90(xs: number[]): number {
	const s = [...xs].sort((a, b) => a - b);
	return s[Math.floor(s.length * 0.9)];
}

function time(fn: () => void): number[] {
	for (let i = 0; i < 5; i++) fn();
	const out: number[] = [];
	for (let i = 0; i < RUNS; i++) {
		const t = performance.now();
		fn();
		out.push(performance.now() - t);
	}
	return out;
}

/** The naive method: G(X) from per-contract gamma at 60 evenly spaced spots, linear interpolation. */
function gridZeroGamma(chain: ChainArrays, points = 60): { oi: number | null; vol: number | null } {
	const lo = chain.spot * 0.8;
	const hi = chain.spot * 1.2;
	const xs: number[] = [];
	const oi: number[] = [];
	const vol: number[] = [];
	for (let j = 0; j < points; j++) {
		const x = lo + ((hi - lo) * j) / (points - 1);
		const g = bruteProfile(chain, x);
		xs.push(x);
		oi.push(g.oi);
		vol.push(g.vol);
	}
	const nearest = (g: number[]): number | null => {
		let best: number | null = null;
		for (let j = 1; j < g.length; j++) {
			if (g[j - 1] * g[j] >= 0) continue;
			const x = xs[j - 1] + ((xs[j] - xs[j - 1]) * g[j - 1]) / (g[j - 1] - g[j]);
			if (best === null || Math.abs(x - chain.spot) < Math.abs(best - chain.spot)) best = x;
		}
		return best;
	};
	return { oi: nearest(oi), vol: nearest(vol) };
}

const rows: string[] = [];
const fmt = (x: number) => x.toFixed(2);

for (const hours of [5, 0.25]) {
	const chain = syntheticChain({ zeroDteHours: hours });
	const ladder = strikeLadder(chain);
	let greeks: GreekArrays | undefined;
	const label = `${chain.length} contracts, 0DTE ${hours} h left`;
	const fast = zeroGamma(chain);

	const exposures = time(() => {
		greeks = computeGreeks(chain, greeks);
		computeExposures(chain, greeks, { ladder });
	});
	const zg = time(() => zeroGamma(chain));
	const zgNear = time(() => zeroGamma(chain, { nearestOnly: true }));
	const tick = time(() => {
		greeks = computeGreeks(chain, greeks);
		computeExposures(chain, greeks, { ladder });
		zeroGamma(chain);
	});
	const tickNear = time(() => {
		greeks = computeGreeks(chain, greeks);
		computeExposures(chain, greeks, { ladder });
		zeroGamma(chain, { nearestOnly: true });
	});
	const buckets = expiryBuckets(chain);
	const categories = time(() => {
		greeks = computeGreeks(chain, greeks);
		for (const selection of [undefined, buckets.indices[0], buckets.indices[1]])
			categorySnapshot(chain, greeks, { ladder, selection });
	});
	const grid = time(() => gridZeroGamma(chain));
	const kernel = new GammaKernel();
	const kGreeks = createGreekArrays(chain.length);
	let roots = kernel.update(chain, { greeks: kGreeks }).nearestRoots();
	const kernelTick = time(() => {
		kernel.update(chain, { greeks: kGreeks });
		computeExposures(chain, kGreeks, { ladder });
		roots = kernel.nearestRoots();
	});
	const spot0 = chain.spot;
	let flip = 1;
	const kernelWarm = time(() => {
		// Spot moves half a point each second; the previous second's roots seed the brackets.
		const warm = { spot: chain.spot, oi: roots.oi, vol: roots.vol };
		chain.spot = spot0 + 0.5 * (flip = -flip);
		kernel.update(chain, { greeks: kGreeks });
		computeExposures(chain, kGreeks, { ladder });
		roots = kernel.nearestRoots(1e-6, warm);
	});
	chain.spot = spot0;
	const kernelRoots = kernel.update(chain).nearestRoots();
	const kernelOnly = time(() => kernel.update(chain).nearestRoots());
	const naive = gridZeroGamma(chain);
	const err = (a: number | null, b: number | null) =>
		a === null || b === null ? 'n/a' : Math.abs(a - b).toPrecision(2);

	rows.push(
		`| ${label}: greeks + all per-strike exposures | ${fmt(median(exposures))} | ${fmt(p90(exposures))} | |`
	);
	rows.push(
		`| ${label}: zero gamma, OI + volume, every root (${fast.rootsOi.length} + ${fast.rootsVol.length}) | ${fmt(median(zg))} | ${fmt(p90(zg))} | |`
	);
	rows.push(
		`| ${label}: zero gamma, OI + volume, nearest roots only (GammaKernel via zeroGamma nearestOnly) | ${fmt(median(zgNear))} | ${fmt(p90(zgNear))} | |`
	);
	rows.push(
		`| ${label}: **exposures + both zero-gamma roots, every root refined** | **${fmt(median(tick))}** | ${fmt(p90(tick))} | < 25 ms |`
	);
	rows.push(
		`| ${label}: **exposures + both zero-gamma roots, nearest only (service path)** | **${fmt(median(tickNear))}** | ${fmt(p90(tickNear))} | < 25 ms |`
	);
	rows.push(
		`| ${label}: service tick, categorySnapshot full + 0DTE + next expiry | ${fmt(median(categories))} | ${fmt(p90(categories))} | |`
	);
	rows.push(
		`| ${label}: 60-point grid zero gamma (naive) | ${fmt(median(grid))} | ${fmt(p90(grid))} | |`
	);
	rows.push(
		`| ${label}: **kernel: greeks + exposures + both nearest roots (cold)** | **${fmt(median(kernelTick))}** | ${fmt(p90(kernelTick))} | < 4 ms |`
	);
	rows.push(
		`| ${label}: kernel, warm-started (spot +-0.5 from the previous second) | ${fmt(median(kernelWarm))} | ${fmt(p90(kernelWarm))} | < 4 ms |`
	);
	rows.push(
		`| ${label}: kernel: bumps + both nearest roots only (${kernelRoots.edges} cell edges, ${kernelRoots.scanPoints} scan points) | ${fmt(median(kernelOnly))} | ${fmt(p90(kernelOnly))} | |`
	);
	rows.push(
		`| ${label}: grid / kernel ratio (grid roots vs kernel greeks + exposures + roots, cold / warm) | ${(median(grid) / median(kernelTick)).toFixed(1)}x / ${(median(grid) / median(kernelWarm)).toFixed(1)}x | | >= 6x |`
	);
	rows.push(
		`| ${label}: reused kernel (greeks in its pass) vs computeGreeks + zeroGamma nearestOnly (fresh kernel) | ${(median(tickNear) / median(kernelTick)).toFixed(1)}x faster | | |`
	);
	rows.push(
		`| ${label}: kernel roots OI / vol, difference to the full scan's nearest | ${kernelRoots.oi?.toFixed(6)} / ${kernelRoots.vol?.toFixed(6)} | ${err(kernelRoots.oi, fast.oi)} / ${err(kernelRoots.vol, fast.vol)} | < 1e-6 |`
	);
	rows.push(
		`| ${label}: grid / fast zero gamma ratio (every root / nearest only) | ${(median(grid) / median(zg)).toFixed(1)}x / ${(median(grid) / median(zgNear)).toFixed(1)}x | | > 1 |`
	);
	rows.push(
		`| ${label}: roots (fast OI / vol, grid error OI / vol) | ${fast.oi?.toFixed(4)} / ${fast.vol?.toFixed(4)} | ${err(naive.oi, fast.oi)} / ${err(naive.vol, fast.vol)} | |`
	);
}

console.log(`Analytics engine, ${RUNS} runs each, node ${process.version}\n`);
console.log('| measurement | median ms | p90 ms | target |');
console.log('| --- | --- | --- | --- |');
for (const r of rows) console.log(r);
