/**
 * What a recorded day costs on the cluster's shared recordings volume (cluster.bench.ts, issue 30
 * item 4): the slot holder's relay with the recorder on its update tap (as the dashboard runs
 * it), holding the default always-record list (SPX, NDX, RUT, SPY, QQQ: Classic gex_full,
 * gex_zero, gex_one and orderflow, spots included), against the simulated market at 10 s/s
 * from 09:31 ET; the bytes on disk per simulated second, scaled to the 6.5-hour session.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setLogSink } from '../src/lib/server/log';
import { SessionRecorder } from '../src/lib/server/recorder/sessionRecorder';
import { StreamRelay } from '../src/lib/server/stream';
import { UpdateTap } from '../src/lib/server/updates/tap';
import { demoAccountsFor } from '../src/service/accounts/demo';
import { spawnService } from './support';

const SPEED = 10;
/** recorderMount.ts's DEFAULT_ALWAYS_RECORD and ALWAYS_RECORD_FEEDS (it reads the app's config). */
const DEFAULT_ALWAYS_RECORD = ['SPX', 'NDX', 'RUT', 'SPY', 'QQQ'];
const GROUPS = DEFAULT_ALWAYS_RECORD.flatMap((t) => [
	`${t}_classic_gex_full`,
	`${t}_classic_gex_zero`,
	`${t}_classic_gex_one`,
	`${t}_orderflow_orderflow`
]);
const SESSION_S = 6.5 * 3600;

function bytesUnder(dir: string): { bytes: number; files: number } {
	let bytes = 0;
	let files = 0;
	for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
		if (!entry.isFile()) continue;
		bytes += statSync(join(entry.parentPath, entry.name)).size;
		files++;
	}
	return { bytes, files };
}

export async function recordingDayCost(seconds = 60) {
	setLogSink({ out: () => undefined, err: () => undefined });
	const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-bench-rec-'));
	const root = join(dataDir, 'recordings');
	const service = await spawnService({
		dataDir: join(dataDir, 'service'),
		tickers: DEFAULT_ALWAYS_RECORD,
		start: '2026-11-18T14:31:00Z',
		speed: SPEED,
		seed: 5
	});
	const key = demoAccountsFor(join(dataDir, 'service')).accounts.find(
		(a) => a._id === 'demo-quant'
	)!.keys[0].key;
	const tap = new UpdateTap();
	const recorder = new SessionRecorder({ root });
	const relay = new StreamRelay({ baseUrl: service.url, key, userAgent: 'gexdeck/bench', tap });
	const viewer = relay.connect({
		readyState: 1,
		bufferedAmount: 0,
		send: (_d, cb) => cb?.(),
		close: () => undefined
	});
	try {
		relay.subscribe(viewer, GROUPS);
		await relay.settled();
		await new Promise((r) => setTimeout(r, 5_000));
		recorder.attach(tap);
		const t0 = performance.now();
		await new Promise((r) => setTimeout(r, seconds * 1000));
		recorder.close();
		const simulatedS = ((performance.now() - t0) / 1000) * SPEED;
		const { bytes, files } = bytesUnder(root);
		return {
			simulatedS,
			bytes,
			files,
			perDayMb: (bytes / simulatedS) * (SESSION_S / 1e6),
			state: relay.state
		};
	} finally {
		await relay.close();
		await service.stop();
		rmSync(dataDir, { recursive: true, force: true });
	}
}
