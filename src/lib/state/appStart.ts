/**
 * Whether the app has started in this browser (its root layout mounted). Before that a page's
 * load runs to hydrate what the server rendered, and may replay answers the server inlined in
 * the page (src/lib/stream/backfill/daySeed.ts); after it, loads run for navigations in the app.
 * On the server it stays false.
 */
let started = false;

export function appStarted(): boolean {
	return started;
}

export function markAppStarted(): void {
	started = true;
}

/** Back to a page being rendered (tests). */
export function resetAppStart(): void {
	started = false;
}
