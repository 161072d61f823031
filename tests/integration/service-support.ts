/**
 * Helpers of the service integration tests: start the real service (real market, a small
 * ticker subset, temp data directory, ephemeral port) and make HTTP requests to it the way a
 * client of the upstream does (User-Agent, Accept, Bearer key).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
	errorBodySchema,
	historyUrlSchema,
	responseSchema,
	type Schema
} from '../../src/lib/contract/schemas';
import { matchRoute } from '../../src/lib/contract/routes';
import { safeParse } from '../../src/lib/contract/validate';
import { researchResultSchema } from '../../src/service/http/research/researchSchema';
import { demoAccounts } from '../../src/service/accounts/demo';
import type { AccountKey, AccountRecord, AccountsFile } from '../../src/service/accounts/file';
import { attachHubs, type Hubs, type HubsOptions } from '../../src/service/hubs/index';
import {
	startService,
	type RunningService,
	type StartServiceOptions
} from '../../src/service/server';
import type { UpstreamTarget } from '../../src/lib/server/upstream';

/** The service as its own process (`npm run service`), shared with the benchmarks. */
export { spawnService, type SpawnedService } from '../support/processes';

/** A configured upstream (`customKey` from the environment, no research key) at `baseUrl` (…/v2). */
export function configuredTarget(baseUrl: string, customKey: string): UpstreamTarget {
	return {
		baseUrl,
		rootUrl: baseUrl.replace(/\/v2$/, ''),
		kind: 'configured',
		customKey,
		researchKey: undefined,
		customKeySource: 'environment',
		researchKeySource: 'environment',
		demoAccounts: [],
		demoAccountId: undefined
	};
}

export const UA = 'gexdeck-tests/1.0';
/**
 * The tickers the test market simulates: SPX (index, futures pair, daily expiries) and UNG, a
 * small chain whose past days simulate quickly for history and EOD tests.
 */
export const TEST_TICKERS = ['SPX', 'UNG'];

export interface TestService {
	service: RunningService;
	dataDir: string;
	/** Close the service; `keepData` leaves the data directory for a restart. */
	close(keepData?: boolean): Promise<void>;
}

export async function startTestService(
	options: {
		dataDir?: string;
		accounts?: AccountsFile;
		start?: string;
		speed?: number;
		tickers?: string[];
		/** Wall-clock source of the market clock (unix ms), to jump simulated time in tests. */
		wall?: () => number;
		/** Further market options (history queue bounds), over the test defaults. */
		marketOptions?: StartServiceOptions['marketOptions'];
		/** How long a history request waits for its day before its 504 with progress. */
		historyWaitMs?: number;
	} = {}
): Promise<TestService> {
	const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'gexdeck-service-'));
	const service = await startService({
		dataDir,
		accounts: options.accounts ?? testAccounts(),
		quotaFlushMs: 10,
		tickers: options.tickers ?? TEST_TICKERS,
		start: options.start,
		speed: options.speed,
		seed: 7,
		// History and EOD requests wait for a day's generation up to this bound; the default
		// 60 s is a user-facing limit that a loaded test machine can exceed without any bug (the
		// bound itself is tested in market.test.ts).
		marketOptions: {
			historyWaitMs: options.historyWaitMs ?? 240_000,
			...(options.wall ? { wall: options.wall } : {}),
			...options.marketOptions
		}
	});
	return testService(service, dataDir);
}

function testService(service: RunningService, dataDir: string): TestService {
	return {
		service,
		dataDir,
		async close(keepData = false) {
			await service.close();
			if (!keepData) rmSync(dataDir, { recursive: true, force: true });
		}
	};
}

export interface HubService extends TestService {
	hubs: Hubs;
}

/**
 * The service with its WebSocket hubs attached, in this process, as the hub, relay and client
 * interop tests run it: the demo accounts unless `accounts` are given, quota changes written at
 * once, a fresh data folder (removed on close), and the rest of `options` as given (a ready
 * market such as ManualMarket, or the simulated one's clock, start, speed, seed and tickers);
 * `hubs` are attachHubs' options (ping interval, buffer bound, token clock).
 */
export async function startHubService(
	options: Omit<StartServiceOptions, 'dataDir'> & { hubs?: HubsOptions } = {}
): Promise<HubService> {
	const { hubs: hubsOptions, ...serviceOptions } = options;
	const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-hubs-'));
	const service = await startService({
		accounts: demoAccounts(),
		quotaFlushMs: 0,
		...serviceOptions,
		dataDir
	});
	const hubs = await attachHubs(service, hubsOptions);
	return { ...testService(service, dataDir), hubs };
}

/** The custom-script key of the demo Quant account (every hub, one WebSocket slot). */
export function quantKey(file: AccountsFile = demoAccounts()): string {
	const quant = file.accounts.find((a) => a._id === 'demo-quant')!;
	return quant.keys.find((k) => k.integration === 'custom')!.key;
}

function key(prefix: string, seed: string): string {
	// 43 characters of the base64url alphabet, deterministic per seed.
	return prefix + Buffer.from(seed.repeat(43)).toString('base64url').slice(0, 43);
}

function extraAccount(
	id: string,
	keys: Partial<AccountKey>[],
	patch: Partial<AccountRecord> = {}
): AccountRecord {
	const base = structuredClone(demoAccounts().accounts[3]); // a quant account
	return {
		...base,
		_id: id,
		keys: keys.map((k, i) => ({
			key: key('gexbot_custom_', `${id}${i}`),
			label: `${id} key ${i}`,
			product: 'gexbot',
			integration: 'custom',
			created_at: '2026-01-05T14:00:00Z',
			...k
		})),
		...patch
	};
}

/** Demo accounts plus the kinds the access table needs. */
export function testAccounts(): AccountsFile {
	const file = demoAccounts();
	file.accounts.push(
		extraAccount('expired', [{ expires_at: '2020-01-01T00:00:00Z' }]),
		extraAccount('revoked', [{ revoked: true }]),
		extraAccount('suspended-child', [{}], {
			account: {
				...demoAccounts().accounts[0].account,
				commercial: true,
				child: true,
				suspended: true
			}
		}),
		extraAccount('limited', [{}], {
			allowances: {
				api_majors: { daily: 3, monthly: 90 },
				api_max_change: { daily: 100, monthly: 4 },
				api_history_cache: { daily: 2, monthly: 60 }
			}
		})
	);
	return file;
}

export type KeyKind =
	| 'classic'
	| 'state'
	| 'orderflow'
	| 'quant'
	| 'platform'
	| 'research'
	| 'unknown'
	| 'expired'
	| 'revoked'
	| 'suspended'
	| 'limited';

/** A key of each kind from testAccounts(). */
export function keysOf(file: AccountsFile = testAccounts()): Record<KeyKind, string> {
	const byId = (id: string) => file.accounts.find((a) => a._id === id)!;
	return {
		classic: byId('demo-classic').keys[0].key,
		state: byId('demo-state').keys[0].key,
		orderflow: byId('demo-orderflow').keys[0].key,
		quant: byId('demo-quant').keys[0].key,
		platform: byId('demo-quant').keys.find((k) => k.integration !== 'custom')!.key,
		research: byId('demo-research').keys.find((k) => k.product === 'research')!.key,
		unknown: key('gexbot_custom_', 'nobody'),
		expired: byId('expired').keys[0].key,
		revoked: byId('revoked').keys[0].key,
		suspended: byId('suspended-child').keys[0].key,
		limited: byId('limited').keys[0].key
	};
}

export interface Reply {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	body: Buffer;
	text(): string;
	json(): unknown;
}

/**
 * One GET (or other method) over real HTTP without following redirects or decoding gzip, so
 * tests see exactly what the server sent.
 */
export function call(
	url: string,
	options: {
		key?: string;
		ua?: string | null;
		method?: string;
		headers?: Record<string, string>;
	} = {}
): Promise<Reply> {
	const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
	if (options.ua !== null) headers['User-Agent'] = options.ua ?? UA;
	if (options.key) headers.Authorization = `Bearer ${options.key}`;
	return new Promise((resolve, reject) => {
		const req = request(url, { method: options.method ?? 'GET', headers }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (c: Buffer) => chunks.push(c));
			res.on('end', () => {
				const body = Buffer.concat(chunks);
				resolve({
					status: res.statusCode ?? 0,
					headers: res.headers,
					body,
					text: () => body.toString('utf8'),
					json: () => JSON.parse(body.toString('utf8'))
				});
			});
			res.on('error', reject);
		});
		req.on('error', reject);
		req.end();
	});
}

/**
 * call() plus validation of every JSON answer with the contract's own runtime schemas: a 200
 * against the route's response schema, any other status against the error body schema.
 */
export async function api(
	base: string,
	path: string,
	options: Parameters<typeof call>[1] = {}
): Promise<Reply> {
	const reply = await call(base + path, options);
	const type = String(reply.headers['content-type'] ?? '');
	if (!type.startsWith('application/json') || reply.headers['content-encoding']) return reply;
	const [pathname, search = ''] = path.split('?');
	const query = new URLSearchParams(search);
	let schema: Schema<unknown> | undefined;
	if (reply.status === 200 || reply.status === 302) {
		const matched = matchRoute(options.method ?? 'GET', pathname);
		schema = matched ? responseSchema(matched.route.id, matched.params, query) : undefined;
		// The upstream publishes no research schema; the service's own one checks it.
		if (matched?.route.id === 'research') schema = researchResultSchema;
		if (reply.status === 302) schema = historyUrlSchema;
	} else schema = errorBodySchema;
	if (schema) {
		const result = safeParse(schema, reply.json());
		if (!result.ok) {
			throw new Error(
				`${path} (${reply.status}): ${result.path}: ${result.message}\n${reply.text().slice(0, 300)}`
			);
		}
	}
	return reply;
}

/**
 * GET `path` with `key` as a client of the upstream sends it; the JSON body of its 200, checked
 * against the contract's schema (api()); any other answer is an error.
 */
export async function getJson(
	base: string,
	path: string,
	key: string
): Promise<Record<string, unknown>> {
	const reply = await api(base, path, { key });
	if (reply.status !== 200) throw new Error(`${path} answered ${reply.status}: ${reply.text()}`);
	return reply.json() as Record<string, unknown>;
}

/** Polls until the market has served a first snapshot (the engine's first tick). */
export async function waitForData(base: string, key: string, path = '/v2/SPX/classic/gex_full') {
	const deadline = Date.now() + 60_000;
	for (;;) {
		const r = await call(base + path, { key });
		if (r.status === 200) return r;
		if (Date.now() > deadline) throw new Error(`no data after 60 s: ${r.status} ${r.text()}`);
		await new Promise((res) => setTimeout(res, 100));
	}
}

/**
 * Sends `bytes` on a fresh TCP connection to `port`, waits `waitMs` collecting what comes back,
 * then resets the connection (RST, as a peer that vanishes does). Resolves with what the server
 * sent.
 */
export function sendThenReset(
	port: number,
	bytes: string | Buffer,
	waitMs: number
): Promise<string> {
	return new Promise((resolve) => {
		const socket = connect(port, '127.0.0.1');
		let got = '';
		socket.on('data', (d) => (got += d.toString('latin1')));
		socket.on('error', () => undefined);
		socket.once('connect', () => {
			socket.write(bytes);
			setTimeout(() => {
				if (!socket.destroyed) socket.resetAndDestroy();
				resolve(got);
			}, waitMs);
		});
	});
}

/** POST /v2/negotiate (v2 flow) with `key`; resolves with the hub URLs. */
export async function negotiateUrls(
	baseUrl: string,
	key: string,
	groups: string[]
): Promise<Record<string, string>> {
	const res = await fetch(`${baseUrl}/negotiate`, {
		method: 'POST',
		headers: {
			'User-Agent': UA,
			Authorization: `Bearer ${key}`,
			'Content-Type': 'application/json'
		},
		body: JSON.stringify({ groups })
	});
	if (res.status !== 200) throw new Error(`negotiate answered ${res.status}: ${await res.text()}`);
	return ((await res.json()) as { websocket_urls: Record<string, string> }).websocket_urls;
}
