/**
 * The dashboard's recording half as a process of its own, so a test can kill -9 it mid-write:
 * a StreamRelay holding the account's slot with the update tap, the SessionRecorder on that tap,
 * the `/stream` endpoint for viewers and `GET /history/<ticker>/<stream>` (the same handler as
 * the SvelteKit route). Prints `{"port":N,"repaired":...}` on stdout once listening.
 *
 *   tsx recorder-dashboard.child.ts <service base url> <custom key> <recordings dir>
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { backfillResponse, sendAnswer } from '../../src/lib/server/recorder/backfillResponse';
import { SessionRecorder } from '../../src/lib/server/recorder/sessionRecorder';
import { attachStreamEndpoint, StreamRelay } from '../../src/lib/server/stream';
import { UpdateTap } from '../../src/lib/server/updates/tap';

const [baseUrl, key, root] = process.argv.slice(2);
const tap = new UpdateTap();
const recorder = new SessionRecorder({ root });
const repaired = recorder.recoverAll();
recorder.attach(tap);
const relay = new StreamRelay({
	baseUrl,
	key,
	userAgent: 'gexdeck/test',
	tap,
	backoff: { baseMs: 50, maxMs: 400 }
});
const server = createServer((req, res) => {
	const url = new URL(req.url ?? '/', 'http://x');
	const m = /^\/history\/([^/]+)\/([^/]+)$/.exec(url.pathname);
	if (!m) {
		res.writeHead(404).end();
		return;
	}
	void backfillResponse(recorder, m[1], m[2], url.searchParams).then((a) => sendAnswer(a, res));
});
attachStreamEndpoint(server, relay, () => true);
server.listen(0, '127.0.0.1', () => {
	const port = (server.address() as AddressInfo).port;
	process.stdout.write(`${JSON.stringify({ port, repaired })}\n`);
});
