/**
 * The page's handle on the chain worker: one request at a time matters, so each new request
 * supersedes the previous one and a late answer to an old request is dropped.
 */
import type { ChainConventions } from '../analytics';
import type { ChainWorkerToPage, PageToChainWorker } from './chainMessages';

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

export class ChainWorkerClient {
	private worker: Worker;
	private nextId = 1;
	private latest = 0;

	constructor(
		private readonly onAnswer: (answer: ChainWorkerToPage) => void,
		create: () => Worker = () =>
			new Worker(new URL('./chainWorker.ts', import.meta.url), { type: 'module' })
	) {
		this.worker = create();
		this.worker.onmessage = (ev: MessageEvent<ChainWorkerToPage>) => {
			if (ev.data.id === this.latest) this.onAnswer(ev.data);
		};
		this.worker.onerror = (ev) => {
			this.onAnswer({
				type: 'error',
				id: this.latest,
				message: `the analysis worker failed: ${ev.message}`,
				line: null
			});
		};
	}

	private send(message: WithoutId<PageToChainWorker>): void {
		this.latest = this.nextId++;
		this.worker.postMessage({ ...message, id: this.latest } as PageToChainWorker);
	}

	load(text: string, conventions: ChainConventions): void {
		this.send({ type: 'load', text, conventions });
	}

	analyze(conventions: ChainConventions): void {
		this.send({ type: 'analyze', conventions });
	}

	close(): void {
		this.worker.terminate();
	}
}
