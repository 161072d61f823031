import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { httpServer, interceptRequests, onHttpServer, watchHttpServer } from './httpServer';

const servers: Server[] = [];
afterAll(async () => {
	await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

async function listen(server: Server): Promise<string> {
	servers.push(server);
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('watchHttpServer', () => {
	it('hands the first server that accepts a connection to the attachers before its first request', async () => {
		const seen: string[] = [];
		onHttpServer((server) => {
			// The fast path attached here already answers the very first request.
			interceptRequests(server, (req, res) => {
				if (!req.url?.startsWith('/fast')) return false;
				seen.push(`fast ${req.url}`);
				res.end('fast');
				return true;
			});
		});
		watchHttpServer();
		const app = createServer((req: IncomingMessage, res) => {
			seen.push(`app ${req.url}`);
			res.end('app');
		});
		const base = await listen(app);
		expect(httpServer()).toBeUndefined();
		expect(await (await fetch(`${base}/fast/1`)).text()).toBe('fast');
		expect(httpServer()).toBe(app);
		expect(await (await fetch(`${base}/page`)).text()).toBe('app');
		expect(seen).toEqual(['fast /fast/1', 'app /page']);

		// Later servers are not taken over, and a late attacher gets the known server at once.
		const other = createServer((_req, res) => res.end('other'));
		const otherBase = await listen(other);
		expect(await (await fetch(`${otherBase}/fast/2`)).text()).toBe('other');
		let late: Server | undefined;
		onHttpServer((s) => (late = s));
		expect(late).toBe(app);
	});
});
