/**
 * Child process of bench/stream.bench.ts: N viewers on the relay's `/stream`, each subscribing
 * to the given groups, counting frames and bytes, so their receive cost is not charged to the
 * relay's process. Prints one JSON line when every viewer is subscribed, one per `report` line
 * received on stdin.
 */
import WebSocket from 'ws';

const [url, countText, groupsJson] = process.argv.slice(2);
const groups = JSON.parse(groupsJson) as string[];
let frames = 0;
let bytes = 0;
const sockets: WebSocket[] = [];
await Promise.all(
	Array.from({ length: Number(countText) }, () => {
		return new Promise<void>((resolve, reject) => {
			const ws = new WebSocket(url, { headers: { Cookie: 'bench=1' } });
			sockets.push(ws);
			ws.on('message', (data, isBinary) => {
				if (isBinary) {
					frames++;
					bytes += (data as Buffer).length;
					return;
				}
				const m = JSON.parse(String(data)) as { type: string };
				if (m.type === 'subscribed') resolve();
			});
			ws.once('open', () => ws.send(JSON.stringify({ type: 'subscribe', id: 1, groups })));
			ws.once('error', reject);
		});
	})
);
console.log(JSON.stringify({ event: 'subscribed' }));
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
	if (chunk.includes('report')) console.log(JSON.stringify({ event: 'report', frames, bytes }));
	if (chunk.includes('exit')) {
		for (const s of sockets) s.close();
		process.exit(0);
	}
});
