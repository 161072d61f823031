/**
 * Connection caps of the built dashboard over real sockets: the alert firing streams
 * (/alerts/events, SSE) past alertEventStreams.max answer 503 with Retry-After at once instead
 * of piling up (3,000 were accepted before), and a slot comes back when a stream closes.
 * /readyz in password mode names the relay's state only to a session, and writes no file per
 * call.
 */
import { request, type ClientRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertEventStreams } from '../../src/lib/server/connectionCap';
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
