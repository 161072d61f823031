/**
 * The dashboard's /history route code in a process of its own for bench/backfillServer.bench.ts:
 * a SessionRecorder over a recorded day and `GET /history/<ticker>/<stream>` answered by
 * backfillResponse, so the bench measures this process's event loop while it serves, apart from
 * the client reading the answers. Sends `{port}` over IPC once listening; on "start" it resets
 * its event-loop delay histogram, on "stop" it sends the histogram back (ms); it ends when the
 * parent disconnects.
 *
 * With `sync` the answer is built the way it was before it streamed (synchronousBackfill: the
 * whole body at once on the event loop), the bench's "before" side.
 *
 *   tsx backfill.server-child.ts <recordings dir> [stream|sync]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { backfillResponse, sendAnswer } from '../src/lib/server/recorder/backfillResponse';
import { SessionRecorder } from '../src/lib/server/recorder/sessionRecorder';
import { synchronousBackfill } from '../src/lib/server/recorder/backfillSync.test-support';

const recorder = new SessionRecorder({ root: process.argv[2] });
recorder.recoverAll();
// 1 ms resolution: a stall is what a live frame waiting to be relayed would see.
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
const server = createServer((req, res) => {
	const url = new URL(req.url ?? '/', 'http://x');
	const m = /^\/history\/([^/]+)\/([^/]+)$/.exec(url.pathname);
	if (!m) return void res.writeHead(404).end();
	if (process.argv[3] !== 'sync') {
		return void backfillResponse(recorder, m[1], m[2], url.searchParams).then((a) =>
			sendAnswer(a, res)
		);
	}
	const day = url.searchParams.get('day') ?? '';
	const old = synchronousBackfill(recorder, day, m[1], m[2], url.searchParams);
	res.writeHead(200, {
		'content-type': 'application/octet-stream',
		'x-gexdeck-day': day,
		'x-gexdeck-records': old.records
	});
	res.end(old.body);
});
const ms = (ns: number) => ns / 1e6;
process.on('message', (msg) => {
	if (msg === 'start') {
		delay.reset();
		process.send?.('started');
	}
	if (msg === 'stop') {
		process.send?.({
			p50: ms(delay.percentile(50)),
			p99: ms(delay.percentile(99)),
			max: ms(delay.max),
			mean: ms(delay.mean)
		});
	}
});
process.on('disconnect', () => {
	server.close();
	server.closeAllConnections();
	recorder.close();
});
server.listen(0, '127.0.0.1', () => {
	process.send?.({ port: (server.address() as AddressInfo).port });
});
