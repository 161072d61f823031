import { describe, expect, it } from 'vitest';
import { Viewer, type ViewerSocket } from './viewer';

/** A socket whose buffer drains only when the test says so. */
class SlowSocket implements ViewerSocket {
	readyState = 1;
	bufferedAmount = 0;
	sent: (Uint8Array | string)[] = [];
	private callbacks: (() => void)[] = [];
	send(data: Uint8Array | string, cb?: () => void) {
		this.sent.push(data);
		this.bufferedAmount += typeof data === 'string' ? data.length : data.length;
		if (cb) this.callbacks.push(cb);
	}
	close() {
		this.readyState = 3;
	}
	drain() {
		this.bufferedAmount = 0;
		for (const cb of this.callbacks.splice(0)) cb();
	}
}

const frame = (n: number, size = 100) => new Uint8Array(size).fill(n);

describe('Viewer queue', () => {
	it('sends at once while the buffer is below the high-water mark', () => {
		const s = new SlowSocket();
		const v = new Viewer(1, s, 't', 1000);
		for (let i = 0; i < 5; i++) v.deliver('A', frame(i));
		expect(s.sent).toHaveLength(5);
		expect(v.dropped).toBe(0);
	});

	it('a slow viewer holds at most one latest frame per group, then catches up', () => {
		const s = new SlowSocket();
		const v = new Viewer(1, s, 't', 250);
		for (let i = 0; i < 3; i++) v.deliver('A', frame(i)); // 300 bytes in flight
		for (let i = 3; i < 200; i++) {
			v.deliver('A', frame(i));
			v.deliver('B', frame(i));
		}
		expect(s.sent).toHaveLength(3);
		expect(v.pendingCount).toBe(2);
		expect(v.dropped).toBe(2 * 197 - 2);
		s.drain();
		// The newest of each group went out, nothing older.
		expect(s.sent.slice(3).map((f) => (f as Uint8Array)[0])).toEqual([199, 199]);
		expect(v.pendingCount).toBe(0);
	});

	it('forgets pending frames of dropped groups and stops on close', () => {
		const s = new SlowSocket();
		const v = new Viewer(1, s, 't', 50);
		v.deliver('A', frame(1));
		v.deliver('A', frame(2));
		v.deliver('B', frame(3));
		v.forget(['A']);
		expect(v.pendingCount).toBe(1);
		v.close(1000, 'bye');
		v.deliver('B', frame(4));
		expect(v.pendingCount).toBe(0);
	});
});

describe('Viewer sequences (cluster mode)', () => {
	it('drops a frame no later than the last sent, and replays before the live frames held meanwhile', () => {
		const s = new SlowSocket();
		const v = new Viewer(1, s, 't', 1_000_000);
		v.deliver('A', frame(1), '10-0');
		v.deliver('A', frame(1), '10-0');
		v.deliver('A', frame(0), '9-5');
		expect(s.sent).toHaveLength(1);
		v.beginResume('10-0');
		// Live frames read while the replay is fetched: held, not sent yet.
		v.deliver('A', frame(3), '10-2');
		v.deliver('A', frame(4), '11-0');
		expect(s.sent).toHaveLength(1);
		v.replay('A', frame(2), '10-1');
		v.replay('A', frame(3), '10-2');
		v.endResume();
		expect(s.sent.slice(1).map((f) => (f as Uint8Array)[0])).toEqual([2, 3, 4]);
		expect(v.lastSeq).toBe('11-0');
		expect(v.overflowed).toBe(0);
	});
});
