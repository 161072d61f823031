/**
 * nextTask and inLaterTask: work put off to a later task runs after the current task's
 * microtasks, never inside it; a cancel before it ran keeps it from running, and a cancel after
 * runs the cleanup it returned.
 */
import { describe, expect, it } from 'vitest';
import { inLaterTask, nextTask } from './nextTask';

async function microtasks(n = 20) {
	for (let i = 0; i < n; i++) await Promise.resolve();
}

describe('nextTask', () => {
	it('resolves after the microtasks queued before it', async () => {
		const order: string[] = [];
		const later = nextTask().then(() => order.push('task'));
		void microtasks().then(() => order.push('microtasks'));
		await later;
		expect(order).toEqual(['microtasks', 'task']);
	});
});

describe('inLaterTask', () => {
	it('runs the work in a later task, not in this one', async () => {
		let ran = 0;
		inLaterTask(() => {
			ran++;
		});
		await microtasks();
		expect(ran).toBe(0);
		await nextTask();
		await microtasks();
		expect(ran).toBe(1);
	});

	it('does not run the work when cancelled before its task', async () => {
		let ran = 0;
		const cancel = inLaterTask(() => {
			ran++;
		});
		cancel();
		await nextTask();
		await microtasks();
		expect(ran).toBe(0);
	});

	it("runs the work's cleanup when cancelled after it ran, once", async () => {
		let cleaned = 0;
		const cancel = inLaterTask(() => () => cleaned++);
		await nextTask();
		await microtasks();
		expect(cleaned).toBe(0);
		cancel();
		expect(cleaned).toBe(1);
	});
});
