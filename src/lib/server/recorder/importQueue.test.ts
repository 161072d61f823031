/**
 * The import queue: one import at a time, the rest in order with their place; a full queue
 * refuses at once; a waiting import nobody asked about is dropped at its turn.
 */
import { describe, expect, it } from 'vitest';
import { ImportAbandonedError, ImportQueue, ImportQueueFullError } from './importQueue';

function gate() {
	let open!: () => void;
	const opened = new Promise<void>((r) => (open = r));
	return { open, opened };
}

describe('ImportQueue', () => {
	it("runs one at a time in order, reporting places and the running one's progress", async () => {
		const q = new ImportQueue({ concurrency: 1 });
		const order: string[] = [];
		const gates = [gate(), gate(), gate()];
		const runs = ['a', 'b', 'c'].map((key, i) =>
			q.run(key, async (progress) => {
				order.push(key);
				progress(0.25);
				await gates[i].opened;
				return key;
			})
		);
		expect(q.active).toBe(1);
		expect(q.status('a')).toEqual({ state: 'running', progress: 0.25 });
		expect(q.status('b')).toEqual({ state: 'queued', position: 1, queued: 2 });
		expect(q.status('c')).toEqual({ state: 'queued', position: 2, queued: 2 });
		gates[0].open();
		await runs[0];
		await Promise.resolve();
		expect(q.status('c')).toEqual({ state: 'queued', position: 1, queued: 1 });
		gates[1].open();
		gates[2].open();
		expect(await Promise.all(runs)).toEqual(['a', 'b', 'c']);
		expect(order).toEqual(['a', 'b', 'c']);
		expect(q.status('a')).toBeUndefined();
	});

	it('refuses past its length, and drops a waiting import nobody asked about', async () => {
		let now = 0;
		const q = new ImportQueue({
			concurrency: 1,
			maxQueued: 2,
			abandonAfterMs: 1000,
			now: () => now
		});
		const first = gate();
		const running = q.run('a', () => first.opened);
		const asked = q.run('b', async () => 'b');
		const left = q.run('c', async () => 'c');
		await expect(q.run('d', async () => 'd')).rejects.toBeInstanceOf(ImportQueueFullError);
		now = 5000;
		q.status('b'); // its page is still polling
		first.open();
		await running;
		expect(await asked).toBe('b');
		await expect(left).rejects.toBeInstanceOf(ImportAbandonedError);
	});
});
