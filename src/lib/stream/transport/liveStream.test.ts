import { flushSync } from 'svelte';
import { describe, expect, it } from 'vitest';
import { LiveStream } from './liveStream.svelte';
import type { PageToWorker, WorkerToPage } from './messages';

/** A Worker stand-in: records what the page posts and lets the test answer as the worker. */
class FakeWorker {
	posted: PageToWorker[] = [];
	onmessage: ((ev: MessageEvent<WorkerToPage>) => void) | null = null;
	onerror: ((ev: ErrorEvent) => void) | null = null;
	onmessageerror: (() => void) | null = null;
	terminated = false;
	postMessage(m: PageToWorker) {
		this.posted.push(m);
	}
	terminate() {
		this.terminated = true;
	}
	emit(m: WorkerToPage) {
		this.onmessage?.({ data: m } as MessageEvent<WorkerToPage>);
	}
}

describe('LiveStream', () => {
	it('matches relay replies by id, keeps the newest update per group and the mode', async () => {
		const workers: FakeWorker[] = [];
		const live = new LiveStream({
			url: 'ws://dash/stream',
			createWorker: () => {
				const w = new FakeWorker();
				workers.push(w);
				return w as unknown as Worker;
			}
		});
		const w = workers[0];
		expect(w.posted[0]).toEqual({ type: 'connect', url: 'ws://dash/stream' });
		const reply = live.subscribe(['SPX_orderflow_orderflow', 'NOPE_classic_gex_full']);
		const sub = w.posted[1] as Extract<PageToWorker, { type: 'subscribe' }>;
		w.emit({
			type: 'relay',
			message: {
				type: 'subscribed',
				id: sub.id,
				accepted: ['SPX_orderflow_orderflow'],
				refused: [{ group: 'NOPE_classic_gex_full', reason: 'Unknown ticker' }]
			}
		});
		expect(await reply).toMatchObject({ accepted: ['SPX_orderflow_orderflow'] });
		expect(live.refused).toEqual([{ group: 'NOPE_classic_gex_full', reason: 'Unknown ticker' }]);

		w.emit({ type: 'connection', state: 'open' });
		w.emit({
			type: 'relay',
			message: {
				type: 'status',
				state: 'live',
				usage: { used: 2, limit: 150, perHub: {} },
				groups: [],
				viewers: 1
			}
		});
		flushSync();
		expect(live.mode.mode).toBe('stream');
		const of = (ts: number) => ({
			kind: 'orderflow' as const,
			group: 'SPX_orderflow_orderflow',
			ticker: 'SPX',
			timestamp: ts,
			value: {} as never
		});
		w.emit({ type: 'updates', updates: [of(1)] });
		w.emit({ type: 'updates', updates: [of(2)] });
		expect(live.latest.get('SPX_orderflow_orderflow')?.timestamp).toBe(2);
		expect(live.batches).toBe(2);
		live.close();
		expect(w.terminated).toBe(true);
	});

	it('restarts a worker that died and re-sends the page’s groups', async () => {
		const workers: FakeWorker[] = [];
		const live = new LiveStream({
			url: 'ws://dash/stream',
			restartDelayMs: 1,
			createWorker: () => {
				const w = new FakeWorker();
				workers.push(w);
				return w as unknown as Worker;
			}
		});
		void live.subscribe(['SPX_classic_gex_full']);
		workers[0].onerror?.({ preventDefault: () => undefined } as ErrorEvent);
		expect(workers[0].terminated).toBe(true);
		await new Promise((r) => setTimeout(r, 20));
		expect(workers).toHaveLength(2);
		expect(workers[1].posted.map((m) => m.type)).toEqual(['connect', 'subscribe']);
		expect(workers[1].posted[1]).toMatchObject({ groups: ['SPX_classic_gex_full'] });
		live.close();
	});
});
