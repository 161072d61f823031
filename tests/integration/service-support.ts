/**
 * Helpers of the service integration tests: start the real service (real market, a small
 * ticker subset, temp data directory, ephemeral port) and make HTTP requests to it the way a
 * client of the upstream does (User-Agent, Accept, Bearer key).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
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
import { startService, type RunningService } from '../../src/service/server';

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
			...(options.wall ? { wall: options.wall } : {})
		}
	});
	return {
		service,
		dataDir,
		async close(keepData = false) {
			await service.close();
			if (!keepData) rmSync(dataDir, { recursive: true, force: true });
		}
	};
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
 * The service as its own process, as `npm run service` runs it (so a crash is an exit);
 * resolves once it printed its ready line. `port` 0 picks a free one; a fixed one restarts a
 * killed service where its clients expect it.
 */
export async function spawnService(options: {
	dataDir: string;
	port?: number;
	tickers?: string[];
	start?: string;
	seed?: number;
	/** Collects the child's stderr (crash traces) instead of passing it through. */
	onStderr?: (text: string) => void;
}): Promise<{ child: ChildProcess; url: string; port: number }> {
	const args = ['--import', 'tsx', 'src/service/main.ts', '--ready-json'];
	args.push('--port', String(options.port ?? 0), '--data-dir', options.dataDir);
	args.push('--tickers', (options.tickers ?? ['SPX']).join(','));
	args.push('--start', options.start ?? '2026-11-18T16:00:00Z');
	if (options.seed !== undefined) args.push('--seed', String(options.seed));
	const child = spawn(process.execPath, args, {
		stdio: ['ignore', 'pipe', options.onStderr ? 'pipe' : 'inherit']
	});
	if (options.onStderr) child.stderr!.on('data', (d: Buffer) => options.onStderr!(d.toString()));
	for await (const line of createInterface({ input: child.stdout! })) {
		if (!line.startsWith('{')) continue;
		const ready = JSON.parse(line) as { event: string; base_url: string };
		if (ready.event === 'ready') {
			child.stdout!.resume();
			return { child, url: ready.base_url, port: Number(new URL(ready.base_url).port) };
		}
	}
	throw new Error('the service exited before it was ready');
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
