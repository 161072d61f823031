/**
 * A webhook receiver on loopback for the cluster tests: records every JSON firing that arrives
 * (by its idempotency key, firingLog.ts), answers 204, and can hold the next request unanswered
 * (a delivery the sender has not finished when it is killed).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AlertFiring } from '../../src/lib/alerts/firing';
import { firingKey } from '../../src/lib/server/alerts/firingLog';

export class WebhookReceiver {
	/** Every firing that arrived, in order (a held one too). */
	readonly received: AlertFiring[] = [];
	private holdNext: ((f: AlertFiring) => void) | undefined;
	private readonly held: ServerResponse[] = [];
	private readonly server = createServer((req, res) => {
		let body = '';
		req.on('data', (c: Buffer) => (body += c));
		req.on('end', () => {
			const firing = JSON.parse(body) as AlertFiring;
			this.received.push(firing);
			const hold = this.holdNext;
			if (hold && !firing.test) {
				this.holdNext = undefined;
				this.held.push(res);
				hold(firing);
			} else res.writeHead(204).end();
		});
	});

	static async start(): Promise<WebhookReceiver> {
		const r = new WebhookReceiver();
		await new Promise<void>((ok) => r.server.listen(0, '127.0.0.1', ok));
		return r;
	}

	get url(): string {
		return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
	}

	/** The keys of the firings received (tests left out), in arrival order. */
	keys(): string[] {
		return this.received.filter((f) => !f.test).map(firingKey);
	}

	/**
	 * Leaves the next firing's request unanswered; `onHeld` runs as it arrives (in the same
	 * turn, before the sender can hear anything back).
	 */
	holdNextFiring(onHeld: (f: AlertFiring) => void): void {
		this.holdNext = onHeld;
	}

	async close(): Promise<void> {
		for (const res of this.held) res.destroy();
		this.server.closeAllConnections();
		await new Promise((ok) => this.server.close(ok));
	}
}
