/**
 * `npm run dev` streams: Vite's dev server (vite.config.ts's gexdeck-dev-server plugin) gets the
 * same /api fast path, /stream relay and request gate as the production server, and Vite's own
 * HMR WebSocket on the same server still upgrades. The dashboard runs in a child process
 * (dev-server.child.ts: createServer from vite, 127.0.0.1, port 0, a fresh data folder) with the
 * embedded service as its upstream, as `npm run dev` runs it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopChild } from '../support/processes';
import { rawRequest, root, streamFrame, upgradeStatus } from './dashboard-support';

let proc: ChildProcess;
let port = 0;
let output = '';

/** The environment of the child: none of vitest's, none of the caller's gexdeck settings. */
function cleanEnv(): Record<string, string> {
	const env: Record<string, string> = {};
	for (const [k, v] of Object.entries(process.env)) {
		if (v === undefined || /^(VITEST|GEXDECK_|NODE_ENV$|HOST$|PORT$|ORIGIN$|TEST$)/.test(k)) {
			continue;
		}
		env[k] = v;
	}
	return { ...env, GEXDECK_DATA_DIR: mkdtempSync(join(tmpdir(), 'gexdeck-dev-')) };
}

beforeAll(async () => {
	proc = spawn(
		process.execPath,
		['--import', 'tsx', join('tests', 'integration', 'dev-server.child.ts')],
		{
			cwd: root,
			env: cleanEnv(),
			stdio: ['ignore', 'pipe', 'pipe']
		}
	);
	proc.stderr!.on('data', (d: Buffer) => (output += d.toString()));
	port = await new Promise<number>((resolve, reject) => {
		let out = '';
		proc.stdout!.on('data', (d: Buffer) => {
			out += d.toString();
			output += d.toString();
			const line = out.split('\n').find((l) => l.startsWith('{"event":"listening"'));
			if (line) resolve((JSON.parse(line) as { port: number }).port);
		});
		proc.once('exit', (code) => reject(new Error(`vite dev exited ${code}: ${output}`)));
	});
}, 120_000);

afterAll(async () => {
	if (proc) await stopChild(proc);
});

describe('vite dev', () => {
	it('serves a page, which runs the init hook under the dev server', async () => {
		const page = await rawRequest(port, 'GET', '/SPX/classic/gex_full');
		expect(page.status, output).toBe(200);
		expect(page.body).toContain('<html');
	}, 120_000);

	it('answers GET /api through the proxy on the fast path', async () => {
		const res = await rawRequest(port, 'GET', '/api/tickers');
		expect(res.status, res.body).toBe(200);
		expect((JSON.parse(res.body) as { indexes: string[] }).indexes).toContain('SPX');
		// The node:http fast path answers without SvelteKit: its headers, no cookie set.
		expect(res.headers['x-content-type-options']).toBe('nosniff');
		expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
		expect(res.headers['set-cookie']).toBeUndefined();
		// The gate applies: a foreign Host is refused before the proxy.
		const foreign = await rawRequest(port, 'GET', '/api/tickers', { host: 'evil.example' });
		expect(foreign.status).toBe(421);
	});

	it('relays a /stream frame', async () => {
		const { ws, frame } = await streamFrame(`http://127.0.0.1:${port}`);
		ws.close();
		expect(frame.byteLength).toBeGreaterThan(0);
	}, 90_000);

	it("keeps Vite's HMR socket and refuses other upgrades", async () => {
		expect((await upgradeStatus(port, '/', { 'sec-websocket-protocol': 'vite-hmr' })).status).toBe(
			101
		);
		expect((await upgradeStatus(port, '/elsewhere')).status).toBe(404);
		// The request gate guards /stream under dev as in production: Origin must be allowed.
		const cross = await upgradeStatus(port, '/stream', { origin: 'http://evil.example' });
		expect(cross.status).toBe(403);
	});
});
