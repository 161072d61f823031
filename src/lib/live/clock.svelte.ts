/**
 * The tab's one once-a-second clock: age readouts ("Last change seen 3 s ago"), the stream's
 * stall check and the status line read `clock.now` instead of each starting an interval. The
 * interval runs only while some effect or template reads it (createSubscriber), so a page
 * without live parts costs no timer; read outside any effect it is simply the current time.
 */
import { createSubscriber } from 'svelte/reactivity';

export const CLOCK_TICK_MS = 1_000;

class Clock {
	#now = Date.now();
	#running = false;
	#subscribe = createSubscriber((update) => {
		this.#now = Date.now();
		this.#running = true;
		const timer = setInterval(() => {
			this.#now = Date.now();
			update();
		}, CLOCK_TICK_MS);
		return () => {
			this.#running = false;
			clearInterval(timer);
		};
	});

	/** Wall-clock ms, updated once a second for the effects that read it. */
	get now(): number {
		this.#subscribe();
		return this.#running ? this.#now : Date.now();
	}
}

export const clock = new Clock();
