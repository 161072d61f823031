/**
 * What GET /healthz and GET /readyz answer. Both are public (no session: probes of systemd,
 * Docker or a load balancer have none) and so say nothing beyond a fixed vocabulary: no URLs,
 * keys, error texts or counts.
 *
 * Ready means this process can serve: not shutting down, the relay is not closed, the data
 * folder is writable (probed at most every 10 s), the database answers a query (SQLite or
 * PostgreSQL, within 2 s) and, in cluster mode, Redis answers. The upstream's state is reported
 * (`upstream`: whether it answers HTTP at all, any status; no key is sent, so no quota is spent;
 * cached briefly so probes cannot hammer it) but does not make the process unready: with the
 * upstream down a replica still serves pages and history and tells its viewers the upstream is
 * down, and a load balancer that took every replica out would serve nothing (issue 30). The
 * relay's state is named only to a caller with a session when a password is set.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RelayState } from '../relay/protocol';

export type CheckResult = 'ok' | 'failing';

export interface Readiness {
	status: 'ready' | 'not ready';
	checks: {
		/** Reported only: whether the upstream answers HTTP (not part of the verdict). */
		upstream: CheckResult;
		disk: CheckResult;
		/** Cluster mode only (GEXDECK_REDIS_URL): whether this replica reaches Redis. */
		redis?: CheckResult;
		/** Whether the records' database answers (left out when not checked). */
		database?: CheckResult;
		/** Left out for a caller without a session when a password is set. */
		relay?: RelayState;
		shutdown: 'no' | 'in progress';
	};
}

export interface ReadinessDeps {
	stopping: () => boolean;
	/** Resolves true when the upstream answered HTTP. */
	upstreamReachable: () => Promise<boolean>;
	relayState: () => RelayState;
	/** Cluster mode: resolves true when Redis answers PING (undefined: one process, no check). */
	redisReachable?: () => Promise<boolean>;
	/** Resolves true when the database answers a query (undefined: not checked). */
	databaseReachable?: () => Promise<boolean>;
	dataDir: string;
	/** The disk check (default: diskWritable(dataDir) now); the route caches it. */
	disk?: () => boolean;
	/** Whether the answer may name the relay's state (default true). */
	showRelay?: boolean;
}

/** Whether `dir` accepts a new file (created, written and removed again). */
export function diskWritable(dir: string): boolean {
	const probe = join(dir, `.readyz-${process.pid}`);
	try {
		mkdirSync(dir, { recursive: true });
		writeFileSync(probe, 'ok');
		rmSync(probe, { force: true });
		return true;
	} catch {
		return false;
	}
}

export async function readiness(deps: ReadinessDeps): Promise<Readiness> {
	const stopping = deps.stopping();
	const optional = (check?: () => Promise<boolean>) =>
		check ? check().catch(() => false) : Promise.resolve(undefined);
	const [upstream, disk, redis, database] = await Promise.all([
		stopping ? Promise.resolve(false) : deps.upstreamReachable().catch(() => false),
		Promise.resolve(deps.disk ? deps.disk() : diskWritable(deps.dataDir)),
		optional(deps.redisReachable),
		optional(deps.databaseReachable)
	]);
	const relay = deps.relayState();
	// The upstream is reported, not required (see above).
	const ready = !stopping && disk && redis !== false && database !== false && relay !== 'closed';
	const verdict = (v: boolean) => (v ? ('ok' as const) : ('failing' as const));
	return {
		status: ready ? 'ready' : 'not ready',
		checks: {
			upstream: upstream ? 'ok' : 'failing',
			disk: disk ? 'ok' : 'failing',
			...(redis === undefined ? {} : { redis: verdict(redis) }),
			...(database === undefined ? {} : { database: verdict(database) }),
			...(deps.showRelay === false ? {} : { relay }),
			shutdown: stopping ? 'in progress' : 'no'
		}
	};
}

/**
 * diskWritable(dir), probed at most once per `cacheMs`: an unauthenticated /readyz caller must not
 * make the server create a file per request.
 */
export function cachedDiskWritable(
	dir: string,
	cacheMs = 10_000,
	now: () => number = Date.now
): () => boolean {
	let at = -Infinity;
	let last = false;
	return () => {
		if (now() - at >= cacheMs) {
			last = diskWritable(dir);
			at = now();
		}
		return last;
	};
}

/**
 * `probe(url)` resolves true when something answers HTTP at `url` within `timeoutMs`; the
 * answer is reused for `cacheMs`, and concurrent probes share one request.
 */
export function cachedReachability(
	url: () => Promise<string>,
	options: { timeoutMs?: number; cacheMs?: number; now?: () => number; fetch?: typeof fetch } = {}
): () => Promise<boolean> {
	const timeoutMs = options.timeoutMs ?? 3_000;
	const cacheMs = options.cacheMs ?? 5_000;
	const now = options.now ?? Date.now;
	const doFetch = options.fetch ?? fetch;
	let last: { at: number; value: Promise<boolean> } | undefined;
	const probe = async (): Promise<boolean> => {
		try {
			const target = await withTimeout(url(), timeoutMs);
			const res = await doFetch(target, {
				method: 'HEAD',
				redirect: 'manual',
				signal: AbortSignal.timeout(timeoutMs)
			});
			await res.body?.cancel();
			return true;
		} catch {
			return false;
		}
	};
	return () => {
		if (!last || now() - last.at > cacheMs) last = { at: now(), value: probe() };
		return last.value;
	};
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	return Promise.race([
		promise,
		new Promise<T>((_, reject) => {
			timer = setTimeout(() => reject(new Error('timeout')), ms);
		})
	]).finally(() => clearTimeout(timer));
}

/** Whether `db` answers `SELECT 1` within `timeoutMs`. */
export async function databaseAnswers(
	db: { get(sql: string): Promise<unknown> },
	timeoutMs = 2_000
): Promise<boolean> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const late = new Promise<boolean>((resolve) => {
		timer = setTimeout(() => resolve(false), timeoutMs);
	});
	try {
		return await Promise.race([db.get('SELECT 1 AS one').then(() => true), late]);
	} catch {
		return false;
	} finally {
		clearTimeout(timer);
	}
}
