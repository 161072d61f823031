/**
 * The cluster benchmark's one summary table (cluster.bench.ts): every number issue 30 asks for,
 * from one run. Viewers per replica at 150 memberships: the relay's CPU per viewer-second as a
 * standby replica and how many viewers fit in a stated CPU budget; the Redis hop's added
 * latency against a single process (stream frame and REST call, same run); the failover time
 * over the kills (median and max).
 */

/** The CPU a replica's relay may spend on its viewers: half of one core (ms of CPU per s). */
export const RELAY_BUDGET_MS_PER_S = 500;

interface Quantiles {
	p50: number;
	p99: number;
}

export interface ClusterSummary {
	/** Viewers x 150 memberships, measured for `seconds`, per relay. */
	viewers?: {
		viewers: number;
		seconds: number;
		single: { cpuMsPerViewerS: number };
		replica: { cpuMsPerViewerS: number };
	};
	/** Stream frame, tick to viewer. */
	stream?: { single: Quantiles; replica: Quantiles; hop: Quantiles };
	/** GET /api, one request at a time. */
	rest?: { single: Quantiles; replica: Quantiles };
	/** An upstream call without and with the shared layer (coalescing, quota, backoff). */
	call?: { local: Quantiles; shared: Quantiles };
	lease?: { median: number; max: number; times: number[] };
	relay?: { median: number; max: number; times: number[] };
	load: { start: number[]; end: number[] };
}

const ms = (v: number) => `${v.toFixed(2)} ms`;
const added = (a: Quantiles, b: Quantiles) =>
	`${ms(b.p50 - a.p50)} / ${ms(b.p99 - a.p99)} (${ms(a.p50)} / ${ms(a.p99)} -> ${ms(b.p50)} / ${ms(b.p99)})`;

/** Viewers a relay holds within `budgetMs` of CPU per second at `perViewerMs` each. */
export const viewersWithin = (budgetMs: number, perViewerMs: number) =>
	Math.floor(budgetMs / perViewerMs);

export function summaryTable(s: ClusterSummary): string {
	const rows: [string, string][] = [];
	if (s.viewers) {
		const { viewers, seconds, single, replica } = s.viewers;
		rows.push([
			`CPU per viewer-second, ${viewers} viewers x 150 memberships (${seconds} s)`,
			`standby replica ${ms(replica.cpuMsPerViewerS)}, single process ${ms(single.cpuMsPerViewerS)}`
		]);
		rows.push([
			`Viewers per replica within ${RELAY_BUDGET_MS_PER_S} ms CPU/s (half a core) for the relay`,
			`${viewersWithin(RELAY_BUDGET_MS_PER_S, replica.cpuMsPerViewerS)} (one core: ${viewersWithin(1000, replica.cpuMsPerViewerS)})`
		]);
	}
	if (s.stream) {
		rows.push([
			'Redis hop added to a stream frame, tick to viewer, p50 / p99 (single -> standby replica)',
			added(s.stream.single, s.stream.replica)
		]);
		rows.push([
			"The hop alone, holder's receipt to the standby's viewer, p50 / p99",
			`${ms(s.stream.hop.p50)} / ${ms(s.stream.hop.p99)}`
		]);
	}
	if (s.rest) {
		rows.push([
			'Redis hop added to GET /api, p50 / p99 (single -> replica on Redis)',
			added(s.rest.single, s.rest.replica)
		]);
	}
	if (s.call) {
		rows.push([
			'Shared layer added to an upstream call, p50 / p99 (none -> Redis)',
			added(s.call.local, s.call.shared)
		]);
	}
	if (s.lease) {
		rows.push([
			`Slot lease hand-over after SIGKILL, ${s.lease.times.length} kills, median / max`,
			`${s.lease.median} ms / ${s.lease.max} ms`
		]);
	}
	if (s.relay) {
		rows.push([
			`Failover to the first frame on a surviving viewer, ${s.relay.times.length} kills, median / max`,
			`${s.relay.median} ms / ${s.relay.max} ms`
		]);
	}
	const load = (l: number[]) => l.map((v) => v.toFixed(1)).join(' ');
	rows.push([
		'Load average (1/5/15 min) at start -> end',
		`${load(s.load.start)} -> ${load(s.load.end)}`
	]);
	return [
		'\nSummary (issue 30):',
		'| measure | value |',
		'| --- | --- |',
		...rows.map(([k, v]) => `| ${k} | ${v} |`)
	].join('\n');
}
