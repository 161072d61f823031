/**
 * TurnQueue: pieces run one at a time in the order queued, each in a later event-loop turn than
 * the previous one ended (a callback queued for the next turn, as an I/O callback would be,
 * runs between two pieces), and a piece that fails neither stops the queue nor is swallowed.
 */
import { describe, expect, it } from 'vitest';
import { TurnQueue } from './turnQueue';

describe('TurnQueue', () => {
	it('runs pieces one at a time, in order, with a turn of the event loop between them', async () => {
		const q = new TurnQueue();
		const log: string[] = [];
		let running = 0;
		const piece = (name: string) => async () => {
			running++;
			expect(running).toBe(1);
			log.push(`${name} start`);
			// Work that awaits in between (a file read): the next piece still waits for its end.
			await Promise.resolve();
			await new Promise((r) => setTimeout(r, 1));
			log.push(`${name} end`);
			// What the loop would serve next (a probe's socket): queued for the next turn.
			setImmediate(() => log.push(`io after ${name}`));
			running--;
			return name;
		};
		const results = await Promise.all(['a', 'b', 'c'].map((n) => q.run(piece(n))));
		expect(results).toEqual(['a', 'b', 'c']);
		expect(log).toEqual([
			'a start',
			'a end',
			'io after a',
			'b start',
			'b end',
			'io after b',
			'c start',
			'c end'
		]);
	});

	it('does not start a piece in the turn it was queued in', async () => {
		const q = new TurnQueue();
		const log: string[] = [];
		const done = q.run(async () => void log.push('piece'));
		await Promise.resolve();
		log.push('same turn');
		await done;
		expect(log).toEqual(['same turn', 'piece']);
	});

	it('goes on after a piece that fails, and hands the failure to its caller', async () => {
		const q = new TurnQueue();
		const failed = q.run(() => Promise.reject(new Error('disk')));
		const next = q.run(async () => 'next');
		await expect(failed).rejects.toThrow('disk');
		await expect(next).resolves.toBe('next');
	});
});
