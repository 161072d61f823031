/**
 * Connection caps of the built dashboard over real sockets: the alert firing streams
 * (/alerts/events, SSE) past alertEventStreams.max answer 503 with Retry-After at once instead
 * of piling up (3,000 were accepted before), and a slot comes back when a stream closes.
 * /history answers streaming at once are capped the same way (800 unread requests held 2,437
 * descriptors before). /readyz in password mode names the relay's state only to a session, and writes no file per
 * call.
 */
import { get, request, type ClientRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertEventStreams, historyStreams } from '../../src/lib/server/connectionCap';
import { SessionRecorder } from '../../src/lib/server/recorder/sessionRecorder';
import { UpdateTap } from '../../src/lib/server/updates/tap';
import { spxChain } from '../../src/lib/wire/arbitraries.test-support';
import { encodeFrame, initWireEncoder } from '../../src/lib/wire/encode';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
	logIn,
	rawRequest,
	startDashboard,
	startStubUpstream,
	type RunningDashboard,
	type StubUpstream
} from './dashboard-support';

let stub: StubUpstream;
let d: RunningDashboard;

beforeAll(async () => {
	stub = await startStubUpstream();
	d = await startDashboard(stub.env);
}, 240_000);

afterAll(async () => {
	await d?.stop();
	await stub?.close();
});

/** Opens an SSE stream and resolves once its first bytes arrived (the request stays open). */
function openStream(port: number): Promise<ClientRequest> {
	return new Promise((resolve, reject) => {
		const req = request({ host: '127.0.0.1', port, path: '/alerts/events' }, (res) => {
			if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
			res.once('data', () => resolve(req));
		});
		req.on('error', reject);
		req.end();
	});
}

describe('/alerts/events cap', () => {
	it('the N+1th stream gets 503 with Retry-After; a closed stream frees its slot', async () => {
		const open: ClientRequest[] = [];
		for (let i = 0; i < alertEventStreams.max; i++) open.push(await openStream(d.port));
		const refused = await rawRequest(d.port, 'GET', '/alerts/events');
		expect(refused.status).toBe(503);
		expect(refused.headers['retry-after']).toBe(String(alertEventStreams.retryAfterSeconds));
		expect(JSON.parse(refused.body).error).toMatch(/Too many alert streams/);
		// The rest of the dashboard still answers.
		expect((await rawRequest(d.port, 'GET', '/healthz')).status).toBe(200);
		open.pop()!.destroy();
		let again: ClientRequest | undefined;
		for (let i = 0; i < 50 && !again; i++) {
			await new Promise((r) => setTimeout(r, 50));
			again = await openStream(d.port).catch(() => undefined);
		}
		expect(again).toBeDefined();
		for (const req of [...open, again!]) req.destroy();
	});
});

describe('/readyz with a password', () => {
	it('tells the relay state only to a session; a hundred calls write no file', async () => {
		const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-readyz-'));
		const p = await startDashboard(
			{ ...stub.env, GEXDECK_PASSWORD: 'pw', GEXDECK_DATA_DIR: dataDir },
			'build'
		);
		try {
			const anon = await rawRequest(p.port, 'GET', '/readyz');
			expect(Object.keys(JSON.parse(anon.body).checks).sort()).toEqual([
				'database',
				'disk',
				'shutdown',
				'upstream'
			]);
			const { session } = await logIn(p, 'pw');
			const authed = await rawRequest(p.port, 'GET', '/readyz', {
				cookie: `gexdeck_session=${session}`
			});
			expect(JSON.parse(authed.body).checks.relay).toBeDefined();
			// Creating and removing a probe file changes the folder's mtime; a hundred calls do not.
			const before = statSync(dataDir).mtimeMs;
			for (let i = 0; i < 100; i++) await rawRequest(p.port, 'GET', '/readyz');
			expect(statSync(dataDir).mtimeMs).toBe(before);
		} finally {
			await p.stop();
		}
	});
});

/** Records an hour of SPX (a 400-strike chain a second) into `dataDir`, as the recorder does. */
async function recordHour(dataDir: string): Promise<string> {
	await initWireEncoder();
	const open = 1795446000; // 2026-11-23 09:30 ET
	const recorder = new SessionRecorder({ root: join(dataDir, 'recordings') });
	const tap = new UpdateTap();
	recorder.attach(tap);
	const variants = Array.from({ length: 10 }, (_, v) => spxChain(400, v + 3));
	for (let s = 0; s < 3600; s++) {
		tap.publish({
			source: 'stream',
			group: 'SPX_classic_gex_full',
			receivedAt: (open + s + 0.5) * 1000,
			any: encodeFrame('gex', { ...variants[s % 10], timestamp: open + s, spot: 7138 })
		});
	}
	recorder.close();
	return '2026-11-23';
}

describe('/history cap', () => {
	it('past the cap of answers streaming at once, 503 with Retry-After; a client gone frees its slot', async () => {
		const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-history-cap-'));
		const day = await recordHour(dataDir);
		const h = await startDashboard({ ...stub.env, GEXDECK_DATA_DIR: dataDir }, 'build');
		const path = `/history/SPX/classic_gex_full?day=${day}`;
		/** A request whose answer is not read (it waits on the socket, holding its slot). */
		const unread = () =>
			new Promise<{ req: ClientRequest; res: IncomingMessage }>((resolve, reject) => {
				const req = get({ host: '127.0.0.1', port: h.port, path, agent: false }, (res) => {
					res.pause();
					resolve({ req, res });
				});
				req.on('error', reject);
			});
		try {
			const held: ClientRequest[] = [];
			for (let i = 0; i < historyStreams.max; i++) {
				const { req, res } = await unread();
				expect(res.statusCode).toBe(200);
				held.push(req);
			}
			const refused = await rawRequest(h.port, 'GET', path);
			expect(refused.status).toBe(503);
			expect(refused.headers['retry-after']).toBe(String(historyStreams.retryAfterSeconds));
			// Answered before SvelteKit's pipeline (fastAnswers.ts), which would set the CSRF cookie.
			expect(refused.headers['set-cookie']).toBeUndefined();
			expect((await rawRequest(h.port, 'GET', '/healthz')).status).toBe(200);
			held.pop()!.destroy();
			let status = 0;
			for (let i = 0; i < 50 && status !== 200; i++) {
				await new Promise((r) => setTimeout(r, 50));
				const again = await unread();
				status = again.res.statusCode ?? 0;
				if (status === 200) held.push(again.req);
				else again.req.destroy();
			}
			expect(status).toBe(200);
			for (const req of held) req.destroy();
		} finally {
			await h.stop();
		}
	});
});
