/**
 * One replica's stream relay in cluster mode as a process of its own, so a test can SIGKILL the
 * slot holder mid-stream: a StreamRelay on the slot lease (RelayCluster, default lease timings)
 * with its `/stream` endpoint. Prints `{"port":N}` on stdout once listening, then a line
 * `{"holding":true|false}` each time its hold on the slot changes.
 *
 *   node --import tsx cluster-replica.child.ts <redis url> <service base url> <custom key> <id>
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectRedis } from '../../src/lib/server/cluster/redis';
import { setLogSink } from '../../src/lib/server/log';
import { attachStreamEndpoint, StreamRelay } from '../../src/lib/server/stream';
import { RelayCluster } from '../../src/lib/server/stream/relayCluster';

const [redisUrl, baseUrl, key, id] = process.argv.slice(2);
setLogSink({ out: () => undefined, err: (line) => process.stderr.write(`${id}: ${line}\n`) });
const cluster = new RelayCluster(connectRedis(redisUrl), connectRedis(redisUrl), id, {
	wantsEveryMs: 200
});
const relay = new StreamRelay({
	baseUrl,
	key,
	userAgent: 'gexdeck/test',
	backoff: { baseMs: 50, maxMs: 400 },
	cluster
});
const server = createServer((_req, res) => res.writeHead(404).end());
attachStreamEndpoint(server, relay, () => true);
server.listen(0, '127.0.0.1', () => {
	const port = (server.address() as AddressInfo).port;
	process.stdout.write(`${JSON.stringify({ port })}\n`);
	let held = false;
	setInterval(() => {
		if (cluster.holding === held) return;
		held = cluster.holding;
		process.stdout.write(`${JSON.stringify({ holding: held })}\n`);
	}, 10);
});
