/**
 * Market engine costs, measured in one run:
 * - engine CPU per simulated second for the whole universe at 1x (target: < 30% of one core,
 *   i.e. < 300 ms of CPU per simulated second), with payloads left lazy (what the loop itself
 *   costs) and with every payload of every ticker built and serialised (every group subscribed);
 * - wall time to regenerate one past SPX day of gex_full history (target: < 30 s).
 */
import { cpus } from 'node:os';
import { QUANT_INDEXES, QUANT_STOCKS, tickersResponse } from '../src/lib/contract/tickers';
import { LiveEngine } from '../src/service/engine/live';
import { SessionClock } from '../src/service/market/clock';
import { generateDay } from '../src/service/history/historyStore';

const pub = tickersResponse();
const universe = [...pub.stocks, ...pub.indexes, ...pub.futures, ...QUANT_STOCKS, ...QUANT_INDEXES];

function cpuMs(): number {
	const u = process.cpuUsage();
	return (u.user + u.system) / 1000;
}

function quantile(xs: number[], q: number): number {
	const s = [...xs].sort((a, b) => a - b);
	return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

async function engineCost(serialiseAll: boolean, seconds: number): Promise<number[]> {
	let wall = Date.parse('2026-11-18T14:30:00Z'); // 09:30 ET: no catch-up, the loop from the open
	const live = new LiveEngine(1, universe, new SessionClock({ mode: 'real', wall: () => wall }));
	await live.advance(Infinity);
	const costs: number[] = [];
	for (let i = 0; i < seconds; i++) {
		wall += 1000;
		const before = cpuMs();
		await live.advance(Infinity);
		if (serialiseAll) {
			for (const t of universe) {
				const s = live.latest(t);
				if (!s) continue;
				for (const k of s.payloads.keys()) void s.payloads.get(k)?.body;
				for (const k of s.majors.keys()) void s.majors.get(k)?.body;
				for (const k of s.maxchange.keys()) void s.maxchange.get(k)?.body;
				if (s.expiryPayloads)
					for (const k of s.expiryPayloads.keys()) void s.expiryPayloads.get(k)?.body;
			}
		}
		costs.push(cpuMs() - before);
	}
	return costs.slice(10); // JIT warm-up
}

const lazy = await engineCost(false, 130);
const all = await engineCost(true, 70);
const started = performance.now();
const day = await generateDay(1, 'SPX', 'gex_full', '2026-11-18');
const regen = (performance.now() - started) / 1000;
const startedStock = performance.now();
await generateDay(1, 'AAPL', 'gex_full', '2026-11-18');
const regenStock = (performance.now() - startedStock) / 1000;

const pct = (ms: number) => `${((ms / 1000) * 100).toFixed(1)}%`;
console.log(
	`Universe: ${universe.length} tickers; ${cpus().length} cores (${cpus()[0]?.model ?? '?'})\n`
);
console.log('| measurement | median | p95 | target |');
console.log('|---|---|---|---|');
console.log(
	`| engine CPU per simulated second, payloads lazy | ${quantile(lazy, 0.5).toFixed(1)} ms (${pct(quantile(lazy, 0.5))}) | ${quantile(lazy, 0.95).toFixed(1)} ms (${pct(quantile(lazy, 0.95))}) | < 300 ms (30% of a core) |`
);
console.log(
	`| engine CPU per simulated second, every payload built + serialised | ${quantile(all, 0.5).toFixed(1)} ms (${pct(quantile(all, 0.5))}) | ${quantile(all, 0.95).toFixed(1)} ms (${pct(quantile(all, 0.95))}) | < 300 ms (30% of a core) |`
);
console.log(
	`| regenerate one past SPX day of gex_full (23,401 s, ${(day.length / 1e6).toFixed(0)} MB JSON) | ${regen.toFixed(1)} s | | < 30 s |`
);
console.log(`| regenerate one past AAPL day of gex_full | ${regenStock.toFixed(1)} s | | (info) |`);
