/** The update tap: every listener gets every update in order; one that throws harms no other. */
import { describe, expect, it } from 'vitest';
import { UpdateTap, type ReceivedUpdate } from './tap';

const update = (group: string): ReceivedUpdate => ({
	source: 'stream',
	group,
	receivedAt: 1,
	any: new Uint8Array([1])
});

describe('UpdateTap', () => {
	it('publishes to every listener, isolates failures, unsubscribes', () => {
		const tap = new UpdateTap();
		const a: string[] = [];
		const b: string[] = [];
		const offA = tap.subscribe((u) => a.push(u.source === 'stream' ? u.group : ''));
		tap.subscribe(() => {
			throw new Error('boom');
		});
		tap.subscribe((u) => b.push(u.source === 'stream' ? u.group : ''));
		tap.publish(update('X_spot'));
		tap.publish(update('Y_spot'));
		expect(a).toEqual(['X_spot', 'Y_spot']);
		expect(b).toEqual(['X_spot', 'Y_spot']);
		expect(tap.failures).toBe(2);
		expect(tap.lastFailure).toBe('boom');
		offA();
		tap.publish(update('Z_spot'));
		expect(a).toHaveLength(2);
		expect(b).toHaveLength(3);
		expect(tap.listenerCount).toBe(2);
	});
});
