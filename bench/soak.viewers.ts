/**
 * Child process of bench/soak.bench.ts: N viewers on the relay's `/stream`, each holding the
 * given groups, checking that every viewer receives every frame of every group once and in
 * order.
 *
 * The check needs no decoding: per group, the first viewer to receive a frame gives it the next
 * index (frames are told apart by an MD5 of their bytes); every viewer must then see the indices
 * of its group one after another. A frame a viewer never got shows as a jump (a gap), a frame
 * it got late as a step back (out of order). The bench also compares the viewers' total with the
 * relay's count of deliveries, which catches a frame missed by every viewer alike. Viewer 0
 * decodes the frames of one group and checks that their timestamps only grow.
 *
 * Prints `{"event":"subscribed"}` once all viewers hold their groups, and a report line on each
 * `report` line read from stdin; exits on `exit`.
 */
import { createHash } from 'node:crypto';
import WebSocket from 'ws';
import { decodeRelayMessage } from '../src/lib/stream/transport/relayDecode';
import { parseRelayFrame } from '../src/lib/relay/relayFrame';

const [url, countText, groupsJson, witnessGroup] = process.argv.slice(2);
const groups = JSON.parse(groupsJson) as string[];
const count = Number(countText);

/** Frame indices of a group kept for lagging viewers to look up (oldest dropped first). */
const WINDOW = 2048;

interface GroupIndex {
	next: number;
	byHash: Map<string, number>;
}
const indices = new Map<string, GroupIndex>();
let frames = 0;
let bytes = 0;
let gaps = 0;
let missed = 0;
let outOfOrder = 0;
/** Groups with a frame out of order (a sample goes into the report). */
const outOfOrderGroups = new Set<string>();
let corrupt = 0;
let witnessFrames = 0;
let witnessBackwards = 0;
let witnessLast = -Infinity;

function indexOf(group: string, hash: string): number {
	let g = indices.get(group);
	if (!g) indices.set(group, (g = { next: 0, byHash: new Map() }));
	const seen = g.byHash.get(hash);
	if (seen !== undefined) return seen;
	const index = g.next++;
	g.byHash.set(hash, index);
	if (g.byHash.size > WINDOW) g.byHash.delete(g.byHash.keys().next().value!);
	return index;
}

function onFrame(viewer: number, last: Map<string, number>, data: Buffer): void {
	frames++;
	bytes += data.length;
	const parsed = parseRelayFrame(data);
	if (!parsed.ok) {
		corrupt++;
		return;
	}
	const { group } = parsed.frame;
	const hash = createHash('md5').update(data).digest('base64');
	const index = indexOf(group, hash);
	const prev = last.get(group);
	if (prev !== undefined) {
		if (index <= prev) {
			outOfOrder++;
			outOfOrderGroups.add(group);
		} else if (index > prev + 1) {
			gaps++;
			missed += index - prev - 1;
		}
	}
	last.set(group, Math.max(index, prev ?? -1));
	if (viewer === 0 && group === witnessGroup) {
		const out = decodeRelayMessage(data);
		if (!out.ok) corrupt++;
		else {
			witnessFrames++;
			if (out.update.timestamp <= witnessLast) witnessBackwards++;
			witnessLast = out.update.timestamp;
		}
	}
}

const sockets: WebSocket[] = [];
await Promise.all(
	Array.from({ length: count }, (_, viewer) => {
		const last = new Map<string, number>();
		return new Promise<void>((resolve, reject) => {
			const ws = new WebSocket(url);
			sockets.push(ws);
			ws.on('message', (data, isBinary) => {
				if (isBinary) return onFrame(viewer, last, data as Buffer);
				const m = JSON.parse(String(data)) as { type: string };
				if (m.type === 'subscribed') resolve();
			});
			ws.once('open', () => ws.send(JSON.stringify({ type: 'subscribe', id: 1, groups })));
			ws.once('error', reject);
			ws.on('close', (code, reason) => {
				console.error(`soak viewer ${viewer} closed: ${code} ${reason.toString()}`);
			});
		});
	})
);
console.log(JSON.stringify({ event: 'subscribed' }));

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
	if (chunk.includes('report')) {
		console.log(
			JSON.stringify({
				event: 'report',
				frames,
				bytes,
				gaps,
				missed,
				outOfOrder,
				outOfOrderGroups: [...outOfOrderGroups].slice(0, 8),
				corrupt,
				witnessFrames,
				witnessBackwards,
				open: sockets.filter((s) => s.readyState === WebSocket.OPEN).length,
				rss: process.memoryUsage.rss()
			})
		);
	}
	if (chunk.includes('exit')) {
		for (const s of sockets) s.close();
		process.exit(0);
	}
});
