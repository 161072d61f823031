import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { isStopping, resetShutdownForTests, shutdown, type ShutdownParts } from './lifecycle';
import { setLogSink } from './log';

// The shutdown's log lines are not this test's subject.
const previousSink = setLogSink({ out: () => undefined, err: () => undefined });
afterAll(() => void setLogSink(previousSink));
afterEach(() => resetShutdownForTests());

async function listening(): Promise<{ server: Server; port: number }> {
	const server = createServer((_req, res) => res.end('ok'));
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	return { server, port: (server.address() as AddressInfo).port };
}

/** A keep-alive request whose connection stays open (idle) afterwards. */
function keepAliveGet(port: number, agent: Agent): Promise<void> {
	return new Promise((resolve, reject) => {
		request({ port, host: '127.0.0.1', agent }, (res) => {
			res.resume();
			res.on('end', () => resolve());
		})
			.on('error', reject)
			.end();
	});
}

describe('shutdown', () => {
	it('closes the server, the stream and the service in order, flushes twice and exits 0', async () => {
		const { server, port } = await listening();
		const agent = new Agent({ keepAlive: true });
		await keepAliveGet(port, agent);
		const steps: string[] = [];
		let exitCode: number | undefined;
		const exited = new Promise<void>((resolve) => {
			const parts: ShutdownParts = {
				server: () => server,
				stopStream: async () => void steps.push(`stream (stopping=${isStopping()})`),
				flush: () => void steps.push(server.listening ? 'flush (listening)' : 'flush'),
				stopService: async () => void steps.push(`service (listening=${server.listening})`),
				exit: (code) => {
					exitCode = code;
					resolve();
				},
				deadlineMs: 5_000
			};
			void shutdown('SIGTERM', parts);
		});
		await exited;
		agent.destroy();
		expect(exitCode).toBe(0);
		expect(steps[0]).toBe('stream (stopping=true)');
		expect(steps.at(-2)).toBe('service (listening=false)');
		expect(steps.filter((s) => s.startsWith('flush'))).toHaveLength(2);
		expect(steps.at(-1)).toBe('flush');
		// Stopped accepting: a new connection is refused.
		await expect(keepAliveGet(port, new Agent())).rejects.toThrow();
	});

	it('runs once for repeated signals', async () => {
		const { server } = await listening();
		let streams = 0;
		const parts: ShutdownParts = {
			server: () => server,
			stopStream: async () => void streams++,
			flush: () => undefined,
			stopService: async () => undefined,
			exit: () => undefined,
			deadlineMs: 5_000
		};
		await Promise.all([shutdown('SIGTERM', parts), shutdown('SIGINT', parts)]);
		expect(streams).toBe(1);
	});

	it('exits 1 at the deadline when a part hangs', async () => {
		const { server } = await listening();
		const code = await new Promise<number>((resolve) => {
			void shutdown('SIGTERM', {
				server: () => server,
				stopStream: async () => undefined,
				flush: () => undefined,
				// Never finishes: only the deadline ends the process.
				stopService: () => new Promise(() => undefined),
				exit: resolve,
				deadlineMs: 300
			});
		});
		expect(code).toBe(1);
	});

	it('a failing part is logged, the rest still runs', async () => {
		const { server } = await listening();
		let serviceStopped = false;
		const code = await new Promise<number>((resolve) => {
			void shutdown('SIGTERM', {
				server: () => server,
				stopStream: () => Promise.reject(new Error('boom')),
				flush: () => {
					throw new Error('disk full');
				},
				stopService: async () => void (serviceStopped = true),
				exit: resolve,
				deadlineMs: 5_000
			});
		});
		expect(code).toBe(0);
		expect(serviceStopped).toBe(true);
	});
});
