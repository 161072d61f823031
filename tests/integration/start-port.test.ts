/**
 * `npm start` on a port another program holds: one sentence naming the port and how to choose
 * another, exit code 1, no stack trace, and nothing started first (no build, no embedded service).
 */
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToExit } from './dashboard-support';

let holder: Server;
let port = 0;

beforeAll(async () => {
	holder = createServer();
	await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
	port = (holder.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

describe('npm start on a port in use', () => {
	it('says which port and how to choose another, and starts nothing', async () => {
		const run = await runToExit(['scripts/start.js'], {
			HOST: '127.0.0.1',
			PORT: String(port),
			GEXDECK_UPSTREAM: undefined
		});
		expect(run.code).toBe(1);
		expect(run.output).toContain(`gexdeck: port ${port} on 127.0.0.1 is already in use`);
		expect(run.output).toMatch(/Choose another port with PORT, e\.g\.: PORT=\d+ npm start/);
		// Neither a stack trace nor anything started before the refusal.
		expect(run.output).not.toMatch(/^\s+at /m);
		expect(run.output).not.toMatch(/building|starting the embedded service|Listening on/);
	}, 60_000);
});
