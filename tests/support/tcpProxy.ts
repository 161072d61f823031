/**
 * A loopback TCP proxy the tests control, to break the network under a client: `cut()` resets
 * every connection through it at once (both ends see the TCP connection die, as on a real
 * network failure), and `down(ms)` also refuses new connections for a while (a network that
 * stays away). Listens on 127.0.0.1 with an ephemeral port.
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

export class TcpProxy {
	/** Connections accepted (first connects and reconnects). */
	accepted = 0;
	/** Connections refused while down. */
	refused = 0;
	private readonly pairs = new Set<[Socket, Socket]>();
	private downUntil = 0;

	private readonly server: Server;
	port = 0;

	private constructor(targetPort: number, targetHost: string) {
		this.server = createServer((client) => {
			if (Date.now() < this.downUntil) {
				this.refused++;
				client.resetAndDestroy();
				return;
			}
			this.accepted++;
			const upstream = connect(targetPort, targetHost);
			const pair: [Socket, Socket] = [client, upstream];
			this.pairs.add(pair);
			const drop = () => {
				this.pairs.delete(pair);
				client.destroy();
				upstream.destroy();
			};
			client.on('error', drop).on('close', drop);
			upstream.on('error', drop).on('close', drop);
			client.pipe(upstream);
			upstream.pipe(client);
		});
	}

	static async start(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
		const proxy = new TcpProxy(targetPort, targetHost);
		await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
		proxy.port = (proxy.server.address() as AddressInfo).port;
		return proxy;
	}

	/** `url` (http or ws) with its host and port replaced by the proxy's. */
	via(url: string): string {
		const u = new URL(url);
		u.hostname = '127.0.0.1';
		u.port = String(this.port);
		return u.toString();
	}

	get open(): number {
		return this.pairs.size;
	}

	/** Resets every connection through the proxy now. */
	cut(): void {
		for (const [client, upstream] of [...this.pairs]) {
			client.resetAndDestroy();
			upstream.resetAndDestroy();
		}
		this.pairs.clear();
	}

	/** Cuts every connection and refuses new ones for `ms`. */
	down(ms: number): void {
		this.downUntil = Date.now() + ms;
		this.cut();
	}

	async close(): Promise<void> {
		this.cut();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}
}
