/**
 * A tab's LiveStream on a stand-in decode worker the test answers as: open, relay live, and
 * push(ts) delivers one GEX update of GROUP (tests of StreamFeed and LiveView).
 */
import { LiveStream } from '$lib/stream';
import type { PageToWorker, WorkerToPage } from '$lib/stream/transport/messages';
import { columnarGex } from '$lib/wire/columnar';
import { spxChain } from '$lib/wire/arbitraries.test-support';

/** A Worker stand-in the test answers as. */
class FakeWorker {
	posted: PageToWorker[] = [];
	onmessage: ((ev: MessageEvent<WorkerToPage>) => void) | null = null;
	onerror: ((ev: ErrorEvent) => void) | null = null;
	onmessageerror: (() => void) | null = null;
	postMessage(m: PageToWorker) {
		this.posted.push(m);
	}
	terminate() {}
	emit(m: WorkerToPage) {
		this.onmessage?.({ data: m } as MessageEvent<WorkerToPage>);
	}
}

export const GROUP = 'SPX_classic_gex_full';
export const chain = spxChain(20);

export function liveStreamOnFakeWorker() {
	let worker!: FakeWorker;
	const live = new LiveStream({
		url: 'ws://dash/stream',
		createWorker: () => (worker = new FakeWorker()) as unknown as Worker
	});
	worker.emit({ type: 'connection', state: 'open' });
	worker.emit({
		type: 'relay',
		message: {
			type: 'status',
			state: 'live',
			usage: { used: 1, limit: 150, perHub: {} },
			groups: [],
			viewers: 1
		}
	});
	const push = (ts: number) =>
		worker.emit({
			type: 'updates',
			updates: [
				{
					kind: 'gex',
					group: GROUP,
					ticker: 'SPX',
					timestamp: ts,
					value: columnarGex({ ...chain, ticker: 'SPX', timestamp: ts })
				}
			]
		});
	return { live, worker, push };
}
