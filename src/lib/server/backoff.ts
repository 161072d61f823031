/**
 * 429 handling per quota pool: after a 429 the pool is held for an exponentially growing,
 * jittered delay during which requests are answered locally (no upstream call). When the delay
 * ends one probe is let through; another 429 doubles the delay. The ceiling covers the up-to-15
 * minute tail of a 429 after a limit change without hammering the service meanwhile.
 */

export interface PoolBackoffState {
	/** `ok`: requests flow; `backing-off`: held until `retryAt`; `probing`: one request in flight. */
	status: 'ok' | 'backing-off' | 'probing';
	/** 429s in a row. */
	consecutive429: number;
	/** Epoch ms when the next request may go (backing-off only). */
	retryAt: number | undefined;
	/** Epoch ms of the last 429. */
	last429At: number | undefined;
}

export interface BackoffOptions {
	baseMs?: number;
	maxMs?: number;
	now?: () => number;
	/** Uniform random in [0, 1), injectable for tests. */
	random?: () => number;
}

export class PoolBackoff {
	private readonly states = new Map<string, PoolBackoffState>();
	private readonly baseMs: number;
	private readonly maxMs: number;
	private readonly now: () => number;
	private readonly random: () => number;

	constructor(options: BackoffOptions = {}) {
		this.baseMs = options.baseMs ?? 2_000;
		this.maxMs = options.maxMs ?? 5 * 60_000;
		this.now = options.now ?? Date.now;
		this.random = options.random ?? Math.random;
	}

	state(pool: string): PoolBackoffState {
		let s = this.states.get(pool);
		if (!s) {
			s = { status: 'ok', consecutive429: 0, retryAt: undefined, last429At: undefined };
			this.states.set(pool, s);
		}
		return s;
	}

	/** Delay before attempt n+1 after n 429s in a row: base * 2^(n-1), capped, jittered +-50 %. */
	delayFor(consecutive: number): number {
		const raw = Math.min(this.maxMs, this.baseMs * 2 ** Math.max(0, consecutive - 1));
		return Math.round(raw * (0.5 + this.random()));
	}

	/**
	 * May a request for `pool` go upstream now? Returns the epoch ms to wait for when not.
	 * While the probe after a hold is in flight, other requests wait for its verdict.
	 */
	admit(pool: string): { ok: true } | { ok: false; retryAt: number } {
		const s = this.state(pool);
		const now = this.now();
		if (s.status === 'ok') return { ok: true };
		if (s.status === 'backing-off' && s.retryAt !== undefined && now >= s.retryAt) {
			s.status = 'probing';
			return { ok: true };
		}
		return { ok: false, retryAt: s.retryAt ?? now + this.baseMs };
	}

	/** Record the status of an upstream answer for `pool`. */
	record(pool: string, status: number): void {
		const s = this.state(pool);
		if (status === 429) {
			s.consecutive429++;
			s.last429At = this.now();
			s.retryAt = s.last429At + this.delayFor(s.consecutive429);
			s.status = 'backing-off';
		} else {
			s.status = 'ok';
			s.consecutive429 = 0;
			s.retryAt = undefined;
		}
	}

	/** The probe failed without an answer (network error): hold again for the same delay. */
	abandonProbe(pool: string): void {
		const s = this.state(pool);
		if (s.status === 'probing') {
			s.status = 'backing-off';
			s.retryAt = this.now() + this.delayFor(Math.max(1, s.consecutive429));
		}
	}

	snapshot(): Record<string, PoolBackoffState> {
		return Object.fromEntries([...this.states].map(([k, v]) => [k, { ...v }]));
	}
}
