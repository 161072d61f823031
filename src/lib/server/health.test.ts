import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	cachedDiskWritable,
	cachedReachability,
	databaseAnswers,
	diskWritable,
	readiness,
	type ReadinessDeps
} from './health';
import { isPublicPath } from './requestGate';
import { openDatabase } from './db';

let server: Server;
let url: string;
let hits = 0;

beforeAll(async () => {
	server = createServer((req, res) => {
		hits++;
		// Any HTTP answer counts as reachable, even a refusal.
		res.writeHead(401).end();
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('diskWritable', () => {
	it('creates the folder, writes a probe and leaves nothing behind', () => {
		const dir = join(mkdtempSync(join(tmpdir(), 'gexdeck-health-')), 'data');
		expect(diskWritable(dir)).toBe(true);
		expect(readdirSync(dir)).toEqual([]);
	});

	it('is false where no folder can be made (a file stands in the way)', () => {
		const file = join(mkdtempSync(join(tmpdir(), 'gexdeck-health-')), 'file');
		writeFileSync(file, 'x');
		expect(diskWritable(join(file, 'data'))).toBe(false);
	});
});

describe('cachedReachability', () => {
	it('is true for any HTTP answer, reuses it for the cache time and shares concurrent probes', async () => {
		let now = 0;
		const probe = cachedReachability(async () => url, { cacheMs: 1000, now: () => now });
		const before = hits;
		expect(await Promise.all([probe(), probe()])).toEqual([true, true]);
		expect(hits - before).toBe(1);
		now = 500;
		await probe();
		expect(hits - before).toBe(1);
		now = 1600;
		await probe();
		expect(hits - before).toBe(2);
	});

	it('is false when nothing listens, or the target cannot be resolved in time', async () => {
		const closed = createServer();
		await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
		const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/v2`;
		await new Promise<void>((r) => closed.close(() => r()));
		expect(await cachedReachability(async () => deadUrl)()).toBe(false);
		const never = cachedReachability(() => new Promise<string>(() => undefined), { timeoutMs: 50 });
		expect(await never()).toBe(false);
	});
});

describe('readiness', () => {
	const deps = (over: Partial<ReadinessDeps> = {}): ReadinessDeps => ({
		stopping: () => false,
		upstreamReachable: async () => true,
		relayState: () => 'idle',
		dataDir: mkdtempSync(join(tmpdir(), 'gexdeck-ready-')),
		...over
	});

	it('is ready when every check passes, naming only fixed verdicts', async () => {
		expect(await readiness(deps({ relayState: () => 'live' }))).toEqual({
			status: 'ready',
			checks: { upstream: 'ok', disk: 'ok', relay: 'live', shutdown: 'no' }
		});
	});

	it('stays ready when the upstream fails, and says so', async () => {
		const down = await readiness(
			deps({ upstreamReachable: () => Promise.reject(new Error('secret detail')) })
		);
		expect(down).toMatchObject({ status: 'ready', checks: { upstream: 'failing' } });
		expect(JSON.stringify(down)).not.toContain('secret');
	});

	it('is not ready when the disk fails, the relay closed or a shutdown began', async () => {
		expect((await readiness(deps({ relayState: () => 'closed' }))).status).toBe('not ready');
		const file = join(mkdtempSync(join(tmpdir(), 'gexdeck-ready-')), 'f');
		writeFileSync(file, '');
		expect((await readiness(deps({ dataDir: join(file, 'x') }))).checks.disk).toBe('failing');
		let asked = false;
		const stopping = await readiness(
			deps({
				stopping: () => true,
				upstreamReachable: async () => ((asked = true), true)
			})
		);
		expect(stopping).toMatchObject({ status: 'not ready', checks: { shutdown: 'in progress' } });
		expect(asked).toBe(false);
	});
});

describe('readiness of the database', () => {
	it('is ok while the database answers, failing (not ready) once it does not', async () => {
		const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-ready-db-'));
		const db = await openDatabase({ dataDir });
		const check = () =>
			readiness({
				stopping: () => false,
				upstreamReachable: async () => true,
				relayState: () => 'idle',
				databaseReachable: () => databaseAnswers(db),
				dataDir
			});
		expect(await check()).toMatchObject({ status: 'ready', checks: { database: 'ok' } });
		await db.close();
		expect(await check()).toMatchObject({ status: 'not ready', checks: { database: 'failing' } });
		// A database that never answers is failing after the timeout, not a hung probe.
		const hung = { get: () => new Promise<never>(() => undefined) };
		expect(await databaseAnswers(hung, 50)).toBe(false);
		rmSync(dataDir, { recursive: true, force: true });
	});
});

describe('readyz without a session', () => {
	it('leaves the relay state out when asked to, still counting it', async () => {
		const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-ready-'));
		const base = { stopping: () => false, upstreamReachable: async () => true, dataDir };
		const hidden = await readiness({ ...base, relayState: () => 'closed', showRelay: false });
		expect(hidden).toEqual({
			status: 'not ready',
			checks: { upstream: 'ok', disk: 'ok', shutdown: 'no' }
		});
	});

	it('probes the disk at most once per period: no file per call', () => {
		const dir = mkdtempSync(join(tmpdir(), 'gexdeck-ready-'));
		let t = 0;
		const probe = cachedDiskWritable(dir, 10_000, () => t);
		expect(probe()).toBe(true);
		rmSync(dir, { recursive: true });
		writeFileSync(dir, ''); // the folder is gone, a file in its place
		t = 9_999;
		expect(probe()).toBe(true); // cached: nothing was written
		t = 10_000;
		expect(probe()).toBe(false);
	});
});

describe('the probes are public paths of the gate', () => {
	it('lets /healthz and /readyz through without a session, nothing below them', () => {
		expect(isPublicPath('/healthz')).toBe(true);
		expect(isPublicPath('/readyz')).toBe(true);
		expect(isPublicPath('/healthz/x')).toBe(false);
		expect(isPublicPath('/readyz/')).toBe(false);
	});
});
