/**
 * The fake socket and the connection rig both reliable-protocol suites drive: reliable.test.ts
 * and reliable.edges.test.ts.
 */
import { groupDataText, parseServerMessage } from '../../lib/contract/pubsub';
import type { SocketLike } from './connection';
import { ReliableConnection, ReliableRegistry } from './reliable';

/** A socket that emits 'close' only to 'close' listeners, like ws does. */
export class FakeSocket implements SocketLike {
	readyState = 1;
	bufferedAmount = 0;
	sent: string[] = [];
	terminated = false;
	private listeners = new Map<string, ((code: number) => void)[]>();
	send(data: string) {
		this.sent.push(data);
	}
	close() {
		this.readyState = 3;
	}
	terminate() {
		this.terminated = true;
		this.readyState = 3;
	}
	ping() {}
	on(event: string, fn: (code: number) => void) {
		this.listeners.set(event, [...(this.listeners.get(event) ?? []), fn]);
	}
	/** The peer's close (1000: a close frame; 1006: the connection dropped). */
	peerClose(code: number) {
		this.readyState = 3;
		for (const fn of this.listeners.get('close') ?? []) fn(code);
	}
	/** Sequence ids of the data messages sent on this socket. */
	sequenceIds(): number[] {
		return this.sent.flatMap((t) => {
			const m = parseServerMessage(t);
			return m.ok && m.message.type === 'message' ? [m.message.sequenceId!] : [];
		});
	}
}

/** Connection `c1` of account `a` on `socket`, in its own registry; `closed` collects onClosed. */
export function reliable(
	socket = new FakeSocket(),
	options: { maxResendBytes?: number; recoveryWindowMs?: number } = {}
) {
	const registry = new ReliableRegistry();
	const closed: unknown[] = [];
	const conn = new ReliableConnection(socket, {
		connectionId: 'c1',
		hub: 'v2_classic',
		account: 'a',
		slotKey: 'a/custom',
		session: 's',
		flow: 'v2',
		registry,
		...options,
		onClosed: (c) => closed.push(c)
	});
	return { conn, registry, socket, closed };
}

/** Data message `i` of one group, 40 bytes of payload. */
export const frame = (i: number) =>
	groupDataText('SPX_classic_gex_full', `QUJD${i}`.padEnd(40, 'A'));
