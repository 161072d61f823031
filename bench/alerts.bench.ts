/**
 * Alert rule evaluation on the dashboard server: 500 rules spread over the groups of a full
 * account (150 hub-and-group memberships, spot included, as the relay's own book counts them),
 * fed one market second after another: a frame per analytics group and a spot per ticker.
 *
 * - evaluation: AlertEngine.observe per update (the cost the target is about:
 *   < 0.2 ms per update);
 * - full path: the tap update as the relay publishes it (zstd protobuf Any bytes of a 400-strike
 *   chain) through observationOf (the project's wire decoder) and the engine, which is what the
 *   server spends per frame that some rule reads.
 *
 * Reports, over market seconds, the median and mean of each second's cost per update, and the
 * p99 second.
 */
import { AlertEngine, type Observation } from '../src/lib/alerts/engine';
import { parseRule, type AlertRule } from '../src/lib/alerts/rules';
import { ALL_STREAM_TICKERS } from '../src/lib/contract/tickers';
import type { ClassicChain, OrderflowBody } from '../src/lib/contract/schemas';
import { observationOf } from '../src/lib/server/alerts/observe';
import { toFeedUpdate } from '../src/lib/server/feeds/fanout';
import { SubscriptionBook } from '../src/lib/server/stream/book';
import type { ReceivedUpdate } from '../src/lib/server/updates/tap';
import { spxChain } from '../src/lib/wire/arbitraries.test-support';
import { encodeFrame, initWireEncoder } from '../src/lib/wire/encode';
import { median, quantile } from './support';

const RULES = 500;
const SECONDS = Number(process.env.BENCH_ALERTS_SECONDS ?? 120);
const FULL_SECONDS = Number(process.env.BENCH_ALERTS_FULL_SECONDS ?? 20);
const T0 = Date.UTC(2026, 10, 18, 15, 0, 0) / 1000;

/** Analytics groups filling the account's 150 memberships, as the relay's book plans them. */
function fullAccount(): { groups: string[]; used: number } {
	const book = new SubscriptionBook<string>(150);
	const kinds = ['classic_gex_full', 'classic_gex_zero', 'orderflow_orderflow', 'state_gex_full'];
	for (const ticker of ALL_STREAM_TICKERS) {
		for (const k of kinds) book.add('alerts', [`${ticker}_${k}`]);
	}
	return { groups: book.groupsOf('alerts').sort(), used: book.plan().usage.used };
}

function makeRules(groups: string[]): AlertRule[] {
	const rules: AlertRule[] = [];
	for (let i = 0; i < RULES; i++) {
		const group = groups[i % groups.length];
		const m = /^(.+)_(classic|state|orderflow)_(.+)$/.exec(group)!;
		const [ticker, pkg, category] = [m[1], m[2], m[3]];
		const base = { id: `r${i}`, ticker, cooldownSeconds: 60 };
		const variants: Record<string, unknown>[] =
			pkg === 'orderflow'
				? [{ kind: 'flow_cross', flow: i % 2 ? 'dex' : 'gex', value: 0, hysteresis: 1 }]
				: [
						{ kind: 'cross', level: 'zero_gamma', hysteresis: 0.5 },
						{ kind: 'cross', level: 'price', price: 7130 + (i % 20) },
						{ kind: 'cross', level: 'max_change', lookback: 'five' },
						{ kind: 'level_move', level: 'major_pos_vol', points: 5 },
						{ kind: 'max_change', lookback: 'one', size: 300, hysteresis: 50 },
						{ kind: 'gex_sign', hysteresis: 10 }
					];
		const v = variants[Math.floor(i / groups.length) % variants.length];
		const parsed = parseRule({ ...base, package: pkg, category, ...v });
		if (!parsed.ok) throw new Error(parsed.error);
		rules.push(parsed.value);
	}
	return rules;
}

/** A random walk of spot around the levels, so rules cross, move and fire. */
function market(seed: number) {
	let s = seed;
	const rnd = () => ((s = (s * 16807) % 2147483647) / 2147483647) * 2 - 1;
	let spot = 7138;
	let zero = 7135;
	return (t: number) => {
		spot += rnd() * 3;
		zero += rnd() * 0.5;
		return { t, spot, zero, flow: rnd() * 5, change: rnd() * 600 };
	};
}

function chainOf(ticker: string, m: ReturnType<ReturnType<typeof market>>, base: ClassicChain) {
	return {
		...base,
		ticker,
		timestamp: m.t,
		spot: m.spot,
		zero_gamma: m.zero,
		major_pos_vol: Math.round(m.spot / 5) * 5 + (m.change > 0 ? 5 : 10),
		sum_gex_vol: m.flow * 1000,
		max_priors: base.max_priors.map(([k], i) => [k, i === 1 ? m.change : m.change / 2]) as [
			number,
			number
		][]
	};
}

function orderflowOf(ticker: string, m: ReturnType<ReturnType<typeof market>>): OrderflowBody {
	return {
		timestamp: m.t,
		ticker,
		spot: m.spot,
		dexoflow: m.flow,
		gexoflow: -m.flow,
		one_dexoflow: 0,
		one_gexoflow: 0
	} as unknown as OrderflowBody;
}

interface Second {
	observations: Observation[];
	updates: ReceivedUpdate[];
}

function tickersOf(groups: string[]): string[] {
	return [...new Set(groups.map((g) => /^(.+)_(classic|state|orderflow)_/.exec(g)![1]))];
}

function buildSeconds(groups: string[], n: number, encode: boolean): Second[] {
	const base = spxChain(400);
	const walks = new Map(tickersOf(groups).map((t, i) => [t, market(i + 1)]));
	const out: Second[] = [];
	for (let k = 0; k < n; k++) {
		const t = T0 + k;
		const observations: Observation[] = [];
		const updates: ReceivedUpdate[] = [];
		const now = new Map([...walks].map(([ticker, walk]) => [ticker, walk(t)]));
		for (const group of groups) {
			const m = /^(.+)_(classic|state|orderflow)_(.+)$/.exec(group)!;
			const ticker = m[1];
			const mk = now.get(ticker)!;
			const stream = `${m[2]}_${m[3]}`;
			if (m[2] === 'orderflow') {
				const body = orderflowOf(ticker, mk);
				observations.push({
					kind: 'orderflow',
					ticker,
					t,
					spot: mk.spot,
					dexoflow: mk.flow,
					gexoflow: -mk.flow,
					one_dexoflow: 0,
					one_gexoflow: 0
				});
				if (encode) {
					updates.push({
						source: 'stream',
						group,
						receivedAt: 0,
						any: encodeFrame('orderflow', body)
					});
				}
			} else {
				const chain = chainOf(ticker, mk, base);
				observations.push({
					kind: 'chain',
					ticker,
					stream,
					t,
					spot: chain.spot,
					zero_gamma: chain.zero_gamma,
					major_pos_vol: chain.major_pos_vol,
					major_neg_vol: chain.major_neg_vol,
					major_pos_oi: chain.major_pos_oi,
					major_neg_oi: chain.major_neg_oi,
					sum_gex_vol: chain.sum_gex_vol,
					sum_gex_oi: chain.sum_gex_oi,
					max_priors: chain.max_priors.flat()
				});
				if (encode)
					updates.push({ source: 'stream', group, receivedAt: 0, any: encodeFrame('gex', chain) });
			}
		}
		for (const [ticker, mk] of now) {
			observations.push({ kind: 'spot', ticker, t, spot: mk.spot });
			if (encode) {
				updates.push({
					source: 'stream',
					group: `${ticker}_spot`,
					receivedAt: 0,
					any: encodeFrame('spot', { timestamp: t, ticker, spot: mk.spot })
				});
			}
		}
		out.push({ observations, updates });
	}
	return out;
}

/** Mean µs per item of each second's batch. */
function perSecond<T>(seconds: T[][], each: (x: T) => unknown): number[] {
	const means: number[] = [];
	for (const batch of seconds) {
		const t = performance.now();
		for (const x of batch) each(x);
		means.push(((performance.now() - t) * 1000) / batch.length);
	}
	return means;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const us = (v: number) => `${v.toFixed(1)} µs`;

async function main(): Promise<void> {
	await initWireEncoder();
	const { groups, used } = fullAccount();
	const rules = makeRules(groups);
	const tickers = tickersOf(groups);

	// Evaluation only.
	const seconds = buildSeconds(groups, SECONDS, false);
	const warm = new AlertEngine(rules);
	perSecond(
		seconds.slice(0, 20).map((s) => s.observations),
		(o) => warm.observe(o)
	);
	const engine = new AlertEngine(rules);
	let fired = 0;
	const evalMeans = perSecond(
		seconds.map((s) => s.observations),
		(o) => (fired += engine.observe(o).length)
	);
	const updatesPerSecond = seconds[0].observations.length;

	// Full path: relay bytes -> wire decoder -> engine.
	const full = buildSeconds(groups, FULL_SECONDS, true);
	const fullEngine = new AlertEngine(rules);
	perSecond(
		full.slice(0, 3).map((s) => s.updates),
		(u) => {
			const f = toFeedUpdate(u);
			const o = f && observationOf(f, new AlertEngine(rules));
			if (o) fullEngine.observe(o);
		}
	);
	const pathEngine = new AlertEngine(rules);
	const fullMeans = perSecond(
		full.map((s) => s.updates),
		(u) => {
			const f = toFeedUpdate(u);
			const o = f && observationOf(f, pathEngine);
			if (o) pathEngine.observe(o);
		}
	);
	const sorted = [...evalMeans].sort((a, b) => a - b);
	const fullSorted = [...fullMeans].sort((a, b) => a - b);
	const target = 200;
	console.log(
		`rules: ${RULES} over ${groups.length} analytics groups of ${tickers.length} tickers`
	);
	console.log(`memberships: ${used} of 150 (the relay's plan, spot included)`);
	console.log(
		`updates per market second: ${updatesPerSecond}; firings over ${SECONDS} s: ${fired}`
	);
	console.log('');
	// A second with a garbage collection of the bench's own prebuilt updates shows as the p99.
	console.log('| per update | median second | mean | p99 second |');
	console.log('| --- | --- | --- | --- |');
	console.log(
		`| evaluation (engine) | ${us(median(evalMeans))} | ${us(mean(evalMeans))} | ${us(quantile(sorted, 0.99))} |`
	);
	console.log(
		`| full path (decode 400-strike frame + evaluate) | ${us(median(fullMeans))} | ${us(mean(fullMeans))} | ${us(quantile(fullSorted, 0.99))} |`
	);
	console.log('');
	const ok = median(evalMeans) < target;
	console.log(
		`target: evaluation < ${target} µs per update: ${ok ? 'met' : 'MISSED'} (${(target / median(evalMeans)).toFixed(0)}x headroom)`
	);
	if (!ok) process.exitCode = 1;
}

void main();
