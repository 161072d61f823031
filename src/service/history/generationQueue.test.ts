import { describe, expect, it } from 'vitest';
import { AbandonedJobError, GenerationQueue, queueOwner } from './generationQueue';

/** A job the test finishes by hand. */
function gate() {
	let open!: (v: string) => void;
	let fail!: (e: Error) => void;
	const done = new Promise<string>((res, rej) => {
		open = res;
		fail = rej;
	});
	return { done, open, fail };
}

const tickOver = () => new Promise((r) => setTimeout(r, 0));

describe('GenerationQueue', () => {
	it('runs at most N jobs, in order, requests before background, and loses none', async () => {
		let now = 0;
		const q = new GenerationQueue({ concurrency: 2, msPerUnit: 1, now: () => now });
		const gates = new Map<string, ReturnType<typeof gate>>();
		const order: string[] = [];
		const submit = (key: string, priority: 'request' | 'background' = 'request') => {
			const g = gate();
			gates.set(key, g);
			return q.submit(key, priority, 100, () => {
				order.push(key);
				return g.done;
			});
		};
		const results = [
			submit('bg', 'background'),
			...Array.from({ length: 10 }, (_, i) => submit(`r${i}`))
		];
		await tickOver();
		expect(q.size).toEqual({ running: 2, waiting: 9 });
		// The background job took a slot only because it came first; the requests go before the
		// background work queued later.
		const late = submit('bg2', 'background');
		expect(q.status('bg2')?.position).toBe(10);
		for (let i = 1; i < 10; i++) {
			const s = q.status(`r${i}`);
			expect(s).toMatchObject({ state: 'queued', position: i, queued: 10 });
		}
		// Estimates grow with the place: two slots, 100 ms per job.
		expect(q.status('r1')?.etaMs).toBe(200);
		expect(q.status('r2')?.etaMs).toBe(200);
		expect(q.status('r3')?.etaMs).toBe(300);
		// A running job's estimate follows its own pace.
		expect(q.status('bg')).toMatchObject({ state: 'running', position: 0 });
		// The same key joins the job instead of queueing another.
		expect(q.submit('r5', 'request', 100, () => Promise.resolve('dup'))).toBe(results[6]);
		// A request for queued background work moves it ahead of the background work.
		const promoted = q.submit('bg2', 'request', 100, () => Promise.resolve('unused'));
		expect(promoted).toBe(late);
		expect(q.status('bg2')).toMatchObject({ position: 10, queued: 10 });
		// A request submitted after it now goes behind it.
		const after = submit('r10');
		expect(q.status('r10')?.position).toBe(11);

		let finished = 0;
		while (finished < 13) {
			const running = [...gates.entries()].filter(([k]) => q.status(k)?.state === 'running');
			expect(running.length).toBeLessThanOrEqual(2);
			now += 50;
			for (const [k, g] of running) {
				g.open(k);
				gates.delete(k);
				finished++;
			}
			await tickOver();
			await tickOver();
		}
		expect(await Promise.all(results)).toEqual([
			'bg',
			...Array.from({ length: 10 }, (_, i) => `r${i}`)
		]);
		expect(await late).toBe('bg2');
		expect(await after).toBe('r10');
		expect(order).toEqual(['bg', ...Array.from({ length: 10 }, (_, i) => `r${i}`), 'bg2', 'r10']);
		expect(q.peakRunning).toBe(2);
		expect(q.started).toBe(13);
		expect(q.size).toEqual({ running: 0, waiting: 0 });
		// Jobs took 50 ms for 100 units: the estimate learnt it.
		const next = gate();
		void q.submit('a', 'request', 100, () => next.done);
		void q.submit('b', 'request', 100, () => next.done);
		void q.submit('c', 'request', 100, () => next.done);
		await tickOver();
		expect(q.status('c')?.etaMs).toBeCloseTo(100, 0);
		next.open('x');
	});

	it('passes a failure to its waiters and goes on with the next job', async () => {
		const q = new GenerationQueue({ concurrency: 1, msPerUnit: 1 });
		const bad = q.submit('bad', 'request', 1, () => Promise.reject(new Error('disk full')));
		const thrown = q.submit('thrown', 'request', 1, () => {
			throw new Error('sync');
		});
		const good = q.submit('good', 'request', 1, (progress) => {
			progress(2);
			return Promise.resolve(7);
		});
		await expect(bad).rejects.toThrow('disk full');
		await expect(thrown).rejects.toThrow('sync');
		await expect(good).resolves.toBe(7);
		expect(q.status('good')).toBeUndefined();
		expect(() => new GenerationQueue({ concurrency: 0, msPerUnit: 1 })).toThrow(RangeError);
	});
});

describe('GenerationQueue fairness and abandoned jobs', () => {
	it('takes turns between accounts: one account queueing many days does not hold another', async () => {
		let now = 0;
		const q = new GenerationQueue({ concurrency: 1, msPerUnit: 1, now: () => now });
		const order: string[] = [];
		const gates = new Map<string, ReturnType<typeof gate>>();
		const submit = (owner: string, key: string) =>
			queueOwner.run(owner, () => {
				const g = gate();
				gates.set(key, g);
				return q.submit(key, 'request', 1, () => {
					order.push(key);
					return g.done;
				});
			});
		for (let i = 0; i < 5; i++) void submit('heavy', `h${i}`);
		void submit('light', 'l0');
		void submit('light', 'l1');
		for (let i = 0; i < 7; i++) {
			await tickOver();
			now++;
			gates.get(order[order.length - 1])!.open('done');
		}
		await tickOver();
		expect(order).toEqual(['h0', 'l0', 'h1', 'l1', 'h2', 'h3', 'h4']);
	});

	it('drops a queued request job nobody asked about for abandonMs; one asked about runs', async () => {
		let now = 0;
		const q = new GenerationQueue({
			concurrency: 1,
			msPerUnit: 1,
			now: () => now,
			abandonMs: 1000
		});
		const first = gate();
		const ran: string[] = [];
		void q.submit('busy', 'request', 1, () => first.done);
		const left = q.submit('left', 'request', 1, async () => {
			ran.push('left');
			return 'x';
		});
		const stays = q.submit('stays', 'request', 1, async () => {
			ran.push('stays');
			return 'y';
		});
		await tickOver();
		now = 900;
		expect(q.status('stays')?.state).toBe('queued'); // its client came back
		now = 1500;
		first.open('done');
		await expect(left).rejects.toBeInstanceOf(AbandonedJobError);
		expect(await stays).toBe('y');
		expect(ran).toEqual(['stays']);
		expect(q.abandoned).toBe(1);
	});
});
