/**
 * A small json.webpubsub.azure.v1 client on `ws` for the hub integration tests: it records every
 * message, waits for the ones a test expects, and reports refused upgrades with their status.
 */
import WebSocket from 'ws';

export const SUBPROTOCOL = 'json.webpubsub.azure.v1';

export interface HubMessage {
	type: string;
	event?: string;
	message?: string;
	group?: string;
	dataType?: string;
	data?: string;
	ackId?: number;
	success?: boolean;
	error?: { name: string; message: string };
	userId?: string;
	connectionId?: string;
}

type Waiter = { pred: (m: HubMessage) => boolean; resolve: (m: HubMessage) => void };

export class HubClient {
	readonly messages: HubMessage[] = [];
	readonly closed: Promise<{ code: number; reason: string }>;
	private waiters: Waiter[] = [];

	private constructor(readonly ws: WebSocket) {
		ws.on('message', (data) => {
			const msg = JSON.parse(String(data)) as HubMessage;
			this.messages.push(msg);
			this.waiters = this.waiters.filter((w) => {
				if (!w.pred(msg)) return true;
				w.resolve(msg);
				return false;
			});
		});
		this.closed = new Promise((resolve) =>
			ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }))
		);
	}

	/** Connects and resolves once the `connected` system message arrived (it must come first). */
	static connect(url: string): Promise<HubClient> {
		return new Promise((resolve, reject) => {
			const ws = new WebSocket(url, SUBPROTOCOL);
			const client = new HubClient(ws);
			ws.once('unexpected-response', (_req, res) =>
				reject(new Error(`upgrade refused: ${res.statusCode}`))
			);
			ws.once('error', reject);
			client
				.next((m) => m.type === 'system', 5000)
				.then((first) => {
					if (first.event !== 'connected')
						reject(new Error(`first message: ${JSON.stringify(first)}`));
					else resolve(client);
				}, reject);
		});
	}

	/** The next message (already received or future) matching `pred`. */
	next(pred: (m: HubMessage) => boolean, timeoutMs = 5000): Promise<HubMessage> {
		const seen = this.messages.find(pred);
		if (seen) return Promise.resolve(seen);
		return this.nextNew(pred, timeoutMs);
	}

	/** The next message matching `pred` that arrives from now on. */
	nextNew(pred: (m: HubMessage) => boolean, timeoutMs = 5000): Promise<HubMessage> {
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => {
				this.waiters = this.waiters.filter((w) => w !== waiter);
				reject(new Error(`no matching message within ${timeoutMs} ms`));
			}, timeoutMs);
			const waiter: Waiter = {
				pred,
				resolve: (m) => {
					clearTimeout(timer);
					resolve(m);
				}
			};
			this.waiters.push(waiter);
		});
	}

	send(value: unknown): void {
		this.ws.send(JSON.stringify(value));
	}

	groupMessages(group: string): HubMessage[] {
		return this.messages.filter((m) => m.type === 'message' && m.group === group);
	}

	close(): void {
		this.ws.close();
	}
}

/** Status and body of an upgrade the server refuses. */
export function refusedUpgrade(url: string): Promise<{ status: number; body: string }> {
	return new Promise((resolve, reject) => {
		const ws = new WebSocket(url, SUBPROTOCOL);
		ws.once('open', () => {
			ws.close();
			reject(new Error('upgrade was accepted'));
		});
		ws.once('unexpected-response', (_req, res) => {
			let body = '';
			res.on('data', (c: Buffer) => (body += c.toString()));
			res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
		});
		ws.once('error', () => undefined);
	});
}
