import { describe, expect, it } from 'vitest';
import { DEFAULT_CONVENTIONS } from '../analytics';
import { ChainWorkerClient } from './chainClient';
import type { ChainWorkerToPage, PageToChainWorker } from './chainMessages';

/** A stand-in Worker that records what it is sent and replies when told to. */
class FakeWorker {
	sent: PageToChainWorker[] = [];
	terminated = false;
	onmessage: ((ev: MessageEvent<ChainWorkerToPage>) => void) | null = null;
	onerror: ((ev: ErrorEvent) => void) | null = null;
	postMessage(m: PageToChainWorker) {
		this.sent.push(m);
	}
	terminate() {
		this.terminated = true;
	}
	reply(m: ChainWorkerToPage) {
		this.onmessage?.({ data: m } as MessageEvent<ChainWorkerToPage>);
	}
}

describe('the chain worker client', () => {
	it('delivers only the answer to the latest request', () => {
		const fake = new FakeWorker();
		const answers: ChainWorkerToPage[] = [];
		const client = new ChainWorkerClient(
			(a) => answers.push(a),
			() => fake as unknown as Worker
		);
		client.load('text', DEFAULT_CONVENTIONS);
		client.analyze({ ...DEFAULT_CONVENTIONS, preset: 'perfiliev' });
		expect(fake.sent.map((m) => [m.type, m.id])).toEqual([
			['load', 1],
			['analyze', 2]
		]);
		const error = (id: number): ChainWorkerToPage => ({
			type: 'error',
			id,
			message: `#${id}`,
			line: null
		});
		fake.reply(error(1));
		expect(answers).toEqual([]);
		fake.reply(error(2));
		expect(answers).toEqual([error(2)]);
		fake.onerror?.({ message: 'boom' } as ErrorEvent);
		expect(answers.at(-1)).toMatchObject({
			type: 'error',
			message: 'the analysis worker failed: boom'
		});
		client.close();
		expect(fake.terminated).toBe(true);
	});
});
