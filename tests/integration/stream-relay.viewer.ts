/**
 * A test viewer of the dashboard's `/stream` endpoint: records control messages and relay
 * frames, and waits for the ones a test expects.
 */
import WebSocket from 'ws';
import { parseRelayFrame, type RelayFrame } from '../../src/lib/relay/relayFrame';
import {
	parseRelayMessage,
	type RelayMessage,
	type ViewerRequest
} from '../../src/lib/relay/protocol';

type Item = { kind: 'message'; message: RelayMessage } | { kind: 'frame'; frame: RelayFrame };
type Waiter = { pred: (i: Item) => boolean; resolve: (i: Item) => void };

export class StreamViewer {
	readonly items: Item[] = [];
	readonly closed: Promise<void>;
	private waiters: Waiter[] = [];
	private nextId = 1;

	private constructor(readonly ws: WebSocket) {
		ws.on('message', (data, isBinary) => {
			let item: Item;
			if (isBinary) {
				const bytes = new Uint8Array(data as Buffer);
				const p = parseRelayFrame(bytes);
				if (!p.ok) throw new Error(`corrupt relay frame: ${p.error}`);
				item = { kind: 'frame', frame: p.frame };
			} else {
				const p = parseRelayMessage(String(data));
				if (!p.ok) throw new Error(`bad relay message: ${p.error}: ${String(data)}`);
				item = { kind: 'message', message: p.message };
			}
			this.items.push(item);
			this.waiters = this.waiters.filter((w) => {
				if (!w.pred(item)) return true;
				w.resolve(item);
				return false;
			});
		});
		this.closed = new Promise((resolve) => ws.on('close', () => resolve()));
	}

	static open(url: string, headers: Record<string, string> = {}): Promise<StreamViewer> {
		return new Promise((resolve, reject) => {
			const ws = new WebSocket(url, { headers });
			const viewer = new StreamViewer(ws);
			ws.once('open', () => resolve(viewer));
			ws.once('unexpected-response', (_req, res) => reject(new Error(`refused ${res.statusCode}`)));
			ws.once('error', reject);
		});
	}

	/** Sends a request and resolves with the reply carrying its id. */
	request(req: ViewerRequest): Promise<RelayMessage> {
		const id = this.nextId++;
		const reply = this.nextNew(
			(i) => i.kind === 'message' && 'id' in i.message && i.message.id === id
		);
		this.ws.send(JSON.stringify({ ...req, id }));
		return reply.then((i) => (i as { message: RelayMessage }).message);
	}

	nextNew(pred: (i: Item) => boolean, timeoutMs = 5000): Promise<Item> {
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => {
				this.waiters = this.waiters.filter((w) => w !== waiter);
				reject(new Error(`no matching item within ${timeoutMs} ms`));
			}, timeoutMs);
			const waiter: Waiter = {
				pred,
				resolve: (i) => {
					clearTimeout(timer);
					resolve(i);
				}
			};
			this.waiters.push(waiter);
		});
	}

	/** The next frame of `group` from now on. */
	nextFrame(group: string, timeoutMs = 5000): Promise<RelayFrame> {
		return this.nextNew((i) => i.kind === 'frame' && i.frame.group === group, timeoutMs).then(
			(i) => (i as { frame: RelayFrame }).frame
		);
	}

	/** The next status message whose state is `state` (already received or future). */
	status(state: string, timeoutMs = 5000): Promise<RelayMessage> {
		const seen = [...this.items]
			.reverse()
			.find((i) => i.kind === 'message' && i.message.type === 'status');
		if (
			seen &&
			seen.kind === 'message' &&
			'state' in seen.message &&
			seen.message.state === state
		) {
			return Promise.resolve(seen.message);
		}
		return this.nextNew(
			(i) => i.kind === 'message' && i.message.type === 'status' && i.message.state === state,
			timeoutMs
		).then((i) => (i as { message: RelayMessage }).message);
	}

	frames(group?: string): RelayFrame[] {
		return this.items
			.filter((i): i is { kind: 'frame'; frame: RelayFrame } => i.kind === 'frame')
			.map((i) => i.frame)
			.filter((f) => group === undefined || f.group === group);
	}

	close(): Promise<void> {
		this.ws.close();
		return this.closed;
	}
}
