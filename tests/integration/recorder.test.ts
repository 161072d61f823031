/**
 * The session recorder over real sockets: the embedded service on the session clock at high
 * speed, the dashboard's recording half in a child process (relay + tap + recorder + /history),
 * viewers on its `/stream`.
 *   - A viewer connected from the start and a backfill fetched later see the same frames, byte
 *     for byte and in order, over a simulated hour.
 *   - kill -9 of the recording process (plus a torn record left at the tail, as a kill mid-write
 *     leaves it): after a restart the day up to the kill is intact and recording resumes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etDay } from '../../src/lib/contract/newYorkTime';
import { splitBackfill } from '../../src/lib/relay/backfillBody';
import { decodeBackfill } from '../../src/lib/stream/backfill/backfill';
import { parseRelayFrame } from '../../src/lib/relay/relayFrame';
import { attachHubs } from '../../src/service/hubs/index';
import { until } from '../support/until';
import { keysOf, startTestService, type TestService } from './service-support';
import { StreamViewer } from './stream-relay.viewer';

const GROUP = 'SPX_classic_gex_full';
// A session day, 10:00 ET; 600x: one simulated hour in six wall seconds.
const START = '2026-11-18T15:00:00Z';
let svc: TestService;
let root: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
	svc = await startTestService({ start: START, speed: 600, tickers: ['SPX'] });
	await attachHubs(svc.service);
	root = mkdtempSync(join(tmpdir(), 'gexdeck-recordings-'));
}, 60_000);

afterAll(async () => {
	for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
	await svc?.close();
	if (root) rmSync(root, { recursive: true, force: true });
});

async function startDashboard(): Promise<{ child: ChildProcess; port: number; repaired: unknown }> {
	const child = spawn(
		process.execPath,
		[
			// One process (tsx's CLI would run the script in a child that a kill -9 leaves alive).
			'--import',
			'tsx',
			join('tests', 'integration', 'recorder-dashboard.child.ts'),
			svc.service.url,
			keysOf().quant,
			root
		],
		{ stdio: ['ignore', 'pipe', 'inherit'] }
	);
	children.push(child);
	const line = await new Promise<string>((resolve, reject) => {
		const rl = createInterface({ input: child.stdout! });
		rl.once('line', resolve);
		child.once('exit', (code) => reject(new Error(`dashboard exited ${code}`)));
	});
	const { port, repaired } = JSON.parse(line) as { port: number; repaired: unknown };
	return { child, port, repaired };
}

async function backfill(port: number, query = 'with=spot'): Promise<Uint8Array> {
	const res = await fetch(`http://127.0.0.1:${port}/history/SPX/classic_gex_full?${query}`);
	expect(res.status).toBe(200);
	return new Uint8Array(await res.arrayBuffer());
}

/** Backfill entries as `group hex(any)` strings, in order. */
function entriesOf(body: Uint8Array): string[] {
	return splitBackfill(body).map(({ frame }) => {
		const p = parseRelayFrame(frame);
		if (!p.ok) throw new Error(p.error);
		return `${p.frame.group} ${Buffer.from(p.frame.any).toString('hex')}`;
	});
}

function framesOf(viewer: StreamViewer): string[] {
	return viewer.frames().map((f) => `${f.group} ${Buffer.from(f.any).toString('hex')}`);
}

describe('session recorder', () => {
	it('backfills, frame for frame, what a viewer from the start received; survives kill -9', async () => {
		const first = await startDashboard();
		const early = await StreamViewer.open(`ws://127.0.0.1:${first.port}/stream`);
		await early.request({ type: 'subscribe', groups: [GROUP] });
		const startSim = Date.parse(START) / 1000;
		// A simulated hour of frames (the clock runs at 600x).
		await until(() => early.frames(GROUP).length >= 2, 30_000, 'first frames');
		await new Promise((r) => setTimeout(r, 6500));

		// A viewer that arrives now gets the whole session so far in one request.
		const live = framesOf(early);
		const late = await backfill(first.port);
		const recorded = entriesOf(late);
		expect(recorded.length).toBeGreaterThan(10);
		// Every frame is written in the turn it is relayed, before the relay reads anything else:
		// the recording holds at least what the early viewer had before it asked, and the early
		// viewer's frames are its prefix, byte for byte.
		expect(recorded.length).toBeGreaterThanOrEqual(live.length);
		await until(() => framesOf(early).length >= recorded.length, 10_000, 'early viewer');
		expect(framesOf(early).slice(0, recorded.length)).toEqual(recorded);

		// The worker's decoder turns the body into the same updates as the live frames.
		const decoded = decodeBackfill(late);
		expect(decoded.corrupt).toBe(0);
		const gex = decoded.updates.filter((u) => u.kind === 'gex');
		expect(gex.length).toBe(recorded.filter((r) => r.startsWith(`${GROUP} `)).length);
		const span = gex.at(-1)!.timestamp - gex[0].timestamp;
		expect(span).toBeGreaterThanOrEqual(3600);
		expect(gex[0].timestamp).toBeGreaterThanOrEqual(startSim - 5);
		expect(etDay(gex[0].timestamp)).toBe('2026-11-18');
		// A range request returns just that range.
		const mid = gex[Math.floor(gex.length / 2)].timestamp;
		const part = decodeBackfill(await backfill(first.port, `from=${mid}&to=${mid + 60}`));
		expect(part.updates.length).toBeGreaterThan(0);
		for (const u of part.updates) {
			expect(u.timestamp).toBeGreaterThanOrEqual(mid);
			expect(u.timestamp).toBeLessThanOrEqual(mid + 60);
		}

		// kill -9 while frames are being written, and leave a torn record as a kill mid-write does.
		first.child.kill('SIGKILL');
		await new Promise((r) => first.child.once('exit', r));
		await early.closed;
		const beforeKill = framesOf(early);
		const day = etDay(gex.at(-1)!.timestamp);
		const torn = Buffer.alloc(40, 0x33);
		torn[0] = 0xa7;
		torn[1] = 1;
		torn.writeUInt32LE(5000, 4);
		appendFileSync(join(root, day, 'SPX', 'classic_gex_full.rec'), torn);

		const second = await startDashboard();
		expect(second.repaired).toMatchObject({ truncatedBytes: 40 });
		const afterRestart = entriesOf(await backfill(second.port));
		const common = Math.min(afterRestart.length, beforeKill.length);
		expect(common).toBeGreaterThan(10);
		expect(afterRestart.slice(0, common)).toEqual(beforeKill.slice(0, common));
		// The relay sends a frame before it records it, in the same turn: at most the frames of the
		// turn cut by the kill differ, delivered but not recorded (or recorded, not delivered).
		expect(Math.abs(afterRestart.length - beforeKill.length)).toBeLessThanOrEqual(2);

		// Recording resumes after the restart, appended to the same day.
		const resumed = await StreamViewer.open(`ws://127.0.0.1:${second.port}/stream`);
		await resumed.request({ type: 'subscribe', groups: [GROUP] });
		await until(() => resumed.frames(GROUP).length >= 3, 30_000, 'frames after restart');
		const whole = entriesOf(await backfill(second.port));
		expect(whole.length).toBeGreaterThan(afterRestart.length);
		expect(whole.slice(0, afterRestart.length)).toEqual(afterRestart);
		const resumedFrames = framesOf(resumed);
		expect(whole).toEqual(expect.arrayContaining(resumedFrames.slice(0, 3)));
		await resumed.close();
		second.child.kill('SIGKILL');
	}, 120_000);
});
