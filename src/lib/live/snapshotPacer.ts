/**
 * Paces the streamed values a live view writes to the IndexedDB snapshot cache: at most one
 * write per STREAM_SNAPSHOT_MS (the newest value then), each in a timer task of its own, never in
 * the Svelte flush that draws the value. Writing every streamed chain (one a second, ~1.8 ms of a
 * tab's main thread per tick for a 400-strike chain: its copy to REST shape, the structured clone
 * and the IndexedDB transaction) sat in the tick-to-pixel path of every tab (issue 26). The cache
 * is for a reload's first paint (marked stale): a value up to this old is as good, and the
 * pending one is written at once on pagehide or when the view goes away (`flush`).
 */

/** At most one streamed snapshot written per this many ms. */
export const STREAM_SNAPSHOT_MS = 10_000;
/** The first write waits this long: out of the update that drew the value and its paint. */
export const FIRST_SNAPSHOT_DELAY_MS = 250;

export class SnapshotPacer {
	private pending: { route: string; body: () => unknown } | undefined;
	private timer: ReturnType<typeof setTimeout> | undefined;
	private lastAt: number | undefined;

	constructor(private readonly write: (route: string, body: unknown) => void) {}

	/** The newest value of `route`; `body` makes what is written, only when it is written. */
	offer(route: string, body: () => unknown): void {
		// Another route's unwritten value is written now, not dropped.
		if (this.pending && this.pending.route !== route) this.flush();
		this.pending = { route, body };
		if (this.timer !== undefined) return;
		const since = this.lastAt === undefined ? Infinity : Date.now() - this.lastAt;
		const delay = Math.max(FIRST_SNAPSHOT_DELAY_MS, STREAM_SNAPSHOT_MS - since);
		this.timer = setTimeout(() => this.flush(), delay);
	}

	/** Writes the pending value now (pagehide, the view goes away). */
	flush(): void {
		if (this.timer !== undefined) clearTimeout(this.timer);
		this.timer = undefined;
		const next = this.pending;
		this.pending = undefined;
		if (!next) return;
		this.lastAt = Date.now();
		this.write(next.route, next.body());
	}
}
