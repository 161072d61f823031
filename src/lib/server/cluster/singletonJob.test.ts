/**
 * A job once per cluster: it follows the slot lease (started on taking it, stopped on losing
 * it, each said in the log), and without a cluster it simply runs, saying nothing of replicas.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { setLogSink } from '../log';
import { SingletonJob, type HoldSignal } from './singletonJob';

const lines: string[] = [];
const previous = setLogSink({ out: (l) => lines.push(l), err: (l) => lines.push(l) });
afterEach(() => {
	lines.length = 0;
});
afterAll(() => void setLogSink(previous));

function job() {
	const calls: string[] = [];
	return { calls, job: { start: () => calls.push('start'), stop: () => calls.push('stop') } };
}

class Lease implements HoldSignal {
	holding = false;
	private readonly listeners = new Set<(holding: boolean) => void>();
	onHoldChange(listener: (holding: boolean) => void) {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}
	set(holding: boolean) {
		this.holding = holding;
		for (const l of this.listeners) l(holding);
	}
}

describe('SingletonJob', () => {
	it('runs at once in one process, and says nothing of replicas', () => {
		const { calls, job: j } = job();
		const s = new SingletonJob('the recorder', j, undefined);
		expect(s.running).toBe(true);
		expect(calls).toEqual(['start']);
		s.close();
		expect(calls).toEqual(['start', 'stop']);
		expect(lines).toEqual([]);
	});

	it('follows the lease in a cluster, and says where it runs', () => {
		const { calls, job: j } = job();
		const lease = new Lease();
		const s = new SingletonJob('the recorder', j, lease);
		expect(s.running).toBe(false);
		expect(calls).toEqual([]);
		lease.set(true);
		lease.set(true);
		expect(s.running).toBe(true);
		lease.set(false);
		expect(calls).toEqual(['start', 'stop']);
		expect(lines).toEqual([
			'gexdeck: cluster: the recorder runs on this replica',
			'gexdeck: cluster: the recorder stopped on this replica'
		]);
		s.close();
		lease.set(true);
		expect(calls).toEqual(['start', 'stop']);
	});
});
