/**
 * One ring writer per group across tabs: with a lock manager that behaves as the Web Locks API
 * does for exclusive locks (granted in request order, held until the callback's promise
 * settles, `ifAvailable` answered null when taken, all of a worker's let go when it ends), only
 * one of several workers records a group, every update once, the first one included; another
 * takes over when the writer's tab closes or its updates stop; without Web Locks every worker
 * records.
 */
import { describe, expect, it } from 'vitest';
import type { StreamUpdate } from '../transport/updates';
import { RING_LOCK_IDLE_MS, RingWriterLocks, type RingLocks } from './ringWriterLock';

/** Exclusive Web Locks for several workers ("owners") of one origin. */
class Locks {
	private readonly queues = new Map<string, { owner: string; grant: () => void }[]>();
	private readonly holders = new Map<string, { owner: string; done: () => void }>();

	for(owner: string): RingLocks {
		return {
			request: (name, options, callback) =>
				new Promise<void>((resolve) => {
					if (options.ifAvailable && (this.holders.has(name) || this.queues.get(name)?.length)) {
						void callback(null).then(() => resolve());
						return;
					}
					const grant = () => {
						let done!: () => void;
						const over = new Promise<void>((r) => (done = r));
						this.holders.set(name, { owner, done });
						// Let go when the callback's promise settles, fulfilled or rejected (as Web Locks do).
						void callback({ name }).then(done, done);
						void over.then(() => {
							if (this.holders.get(name)?.owner === owner) this.holders.delete(name);
							resolve();
							this.next(name);
						});
					};
					const q = this.queues.get(name) ?? [];
					this.queues.set(name, q);
					q.push({ owner, grant });
					if (!this.holders.has(name) && q.length === 1) this.next(name);
				})
		};
	}

	/** A worker ends (its tab closed): its locks go, its queued requests are dropped. */
	end(owner: string): void {
		for (const [name, q] of this.queues)
			this.queues.set(
				name,
				q.filter((r) => r.owner !== owner)
			);
		for (const h of [...this.holders.values()]) if (h.owner === owner) h.done();
	}

	holder(name: string): string | undefined {
		return this.holders.get(name)?.owner;
	}

	private next(name: string): void {
		if (this.holders.has(name)) return;
		const r = this.queues.get(name)?.shift();
		r?.grant();
	}
}

const update = (group: string, timestamp: number) =>
	({ kind: 'gex', group, timestamp }) as unknown as StreamUpdate;

const settle = () => new Promise((r) => setTimeout(r, 0));

function tab(locks: Locks | undefined, name: string, clock: { t: number }) {
	const written: string[] = [];
	const w = new RingWriterLocks(
		{ record: (u) => written.push(`${u.group}@${u.timestamp}`) },
		locks?.for(name),
		() => clock.t
	);
	return { w, written };
}

describe('one ring writer per group across tabs', () => {
	it('three tabs on the same groups: each group written by one of them', async () => {
		const locks = new Locks();
		const clock = { t: 0 };
		const tabs = ['a', 'b', 'c'].map((n) => tab(locks, n, clock));
		for (let s = 1; s <= 5; s++) {
			for (const t of tabs)
				for (const g of ['SPX_classic', 'NDX_classic']) t.w.record(update(g, s));
			await settle();
			clock.t += 1000;
		}
		const all = tabs.flatMap((t) => t.written);
		// Each update once, the first (kept while the lock was asked for) included.
		expect(all.filter((x) => x.startsWith('SPX')).sort()).toEqual([
			'SPX_classic@1',
			'SPX_classic@2',
			'SPX_classic@3',
			'SPX_classic@4',
			'SPX_classic@5'
		]);
		expect(all.filter((x) => x.startsWith('NDX'))).toHaveLength(5);
		expect(tabs.filter((t) => t.w.writes('SPX_classic'))).toHaveLength(1);
	});

	it("the next tab writes when the writer's tab closes, or when its updates stop", async () => {
		const locks = new Locks();
		const clock = { t: 0 };
		const [a, b] = ['a', 'b'].map((n) => tab(locks, n, clock));
		a.w.record(update('SPX_classic', 1));
		b.w.record(update('SPX_classic', 1));
		await settle();
		expect(locks.holder('gexdeck-ring-writer:SPX_classic')).toBe('a');
		expect([a.written, b.written]).toEqual([['SPX_classic@1'], []]);
		locks.end('a');
		await settle();
		b.w.record(update('SPX_classic', 2));
		expect(b.written).toEqual(['SPX_classic@2']);

		// b's view leaves the group: after the idle time its lock goes to a new tab c.
		const c = tab(locks, 'c', clock);
		c.w.record(update('SPX_classic', 3));
		clock.t += RING_LOCK_IDLE_MS - 1;
		b.w.sweep();
		await settle();
		expect(c.w.writes('SPX_classic')).toBe(false);
		c.w.record(update('SPX_classic', 4));
		clock.t += 1;
		b.w.sweep();
		await settle();
		expect(locks.holder('gexdeck-ring-writer:SPX_classic')).toBe('c');
		c.w.record(update('SPX_classic', 5));
		expect(c.written).toEqual(['SPX_classic@5']);
	});

	it('a lock granted for a group no longer seen here is let go at once', async () => {
		const locks = new Locks();
		const clock = { t: 0 };
		const [a, b, c] = ['a', 'b', 'c'].map((n) => tab(locks, n, clock));
		a.w.record(update('SPX_classic', 1));
		await settle();
		b.w.record(update('SPX_classic', 1)); // queued behind a, then b leaves the view
		c.w.record(update('SPX_classic', 1)); // queued behind b
		clock.t += RING_LOCK_IDLE_MS;
		c.w.record(update('SPX_classic', 11));
		locks.end('a');
		await settle();
		await settle();
		expect(b.w.writes('SPX_classic')).toBe(false);
		expect(locks.holder('gexdeck-ring-writer:SPX_classic')).toBe('c');
	});

	it('without Web Locks every tab writes, as before', () => {
		const clock = { t: 0 };
		const [a, b] = ['a', 'b'].map((n) => tab(undefined, n, clock));
		a.w.record(update('SPX_classic', 1));
		b.w.record(update('SPX_classic', 1));
		expect([a.written, b.written]).toEqual([['SPX_classic@1'], ['SPX_classic@1']]);
	});

	it("an update kept while the lock is asked for is a copy: the worker's transfer leaves it whole", async () => {
		const locks = new Locks();
		const written: StreamUpdate[] = [];
		const w = new RingWriterLocks({ record: (u) => written.push(u) }, locks.for('a'));
		const values = new Float64Array([1.5, -2.5]);
		w.record({
			kind: 'gex',
			group: 'SPX_classic',
			timestamp: 1,
			values
		} as unknown as StreamUpdate);
		// The worker posts the update with its arrays transferred: here they are detached.
		structuredClone(values.buffer, { transfer: [values.buffer] });
		expect(values.length).toBe(0);
		await settle();
		expect(written).toHaveLength(1);
		expect(Array.from((written[0] as unknown as { values: Float64Array }).values)).toEqual([
			1.5, -2.5
		]);
	});

	it('a failing ring write of a kept update does not stop the group being written', async () => {
		const locks = new Locks();
		let calls = 0;
		const w = new RingWriterLocks(
			{
				record: () => {
					if (++calls === 1) throw new Error('quota');
				}
			},
			locks.for('a')
		);
		w.record(update('SPX_classic', 1));
		await settle();
		expect(w.writes('SPX_classic')).toBe(true);
		expect(locks.holder('gexdeck-ring-writer:SPX_classic')).toBe('a');
		w.record(update('SPX_classic', 2));
		expect(calls).toBe(2);
	});
});
