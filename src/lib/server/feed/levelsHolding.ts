/**
 * Holds the feeds the levels feed is asked for: a request for (ticker, category) nobody holds
 * starts a poll of its Classic route through the dashboard's proxy (which coalesces with every
 * tab on the same route, keeps the quota ledger and publishes each fresh snapshot on the update
 * tap, where LevelsStore reads it); a feed nobody asked for during `idleMs` is released. Any
 * number of feed clients of one held ticker cost the holding's own polls and nothing more.
 *
 * Cadence: `pollMs` (1 s) in market hours, CLOSED_POLL_MS outside them (the last session's data
 * does not change). An upstream 429 (quota exhausted) or 403 (not entitled) is remembered as the
 * feed's refusal until a poll succeeds again.
 */
import type { ProxyResult } from '../proxy';

export const CLOSED_POLL_MS = 30_000;
export const IDLE_RELEASE_MS = 5 * 60_000;

export interface HoldingOptions {
	poll: (path: string) => Promise<ProxyResult>;
	isMarketOpen: () => boolean;
	pollMs: number;
	idleMs?: number;
	now?: () => number;
}

export interface HoldingRefusal {
	/** 409 when the account's budget is exhausted, 403 when the package is not entitled. */
	status: 403 | 409;
	reason: string;
}

interface Holding {
	path: string;
	lastAsked: number;
	timer?: ReturnType<typeof setTimeout>;
	refusal?: HoldingRefusal;
	/** The last poll failed (network, 5xx): the feed is not updating. */
	failing: boolean;
	lastError?: string;
	polls: number;
}

function errorOf(body: ProxyResult['body']): string {
	try {
		const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
		const e = (JSON.parse(text) as { error?: unknown }).error;
		return typeof e === 'string' ? e : text.slice(0, 200);
	} catch {
		return 'no reason given';
	}
}

export class LevelsHoldings {
	private readonly held = new Map<string, Holding>();
	private readonly now: () => number;

	constructor(private readonly options: HoldingOptions) {
		this.now = options.now ?? Date.now;
	}

	/** Holds (ticker, category) from now on (or keeps holding it); its current state. */
	hold(ticker: string, category: string): Readonly<Holding> {
		const key = `${ticker}|${category}`;
		let h = this.held.get(key);
		if (!h) {
			h = {
				path: `${ticker}/classic/${category}`,
				lastAsked: this.now(),
				failing: false,
				polls: 0
			};
			this.held.set(key, h);
			void this.pollOnce(key, h);
		}
		h.lastAsked = this.now();
		return h;
	}

	private async pollOnce(key: string, h: Holding): Promise<void> {
		if (this.held.get(key) !== h) return;
		if (this.now() - h.lastAsked > (this.options.idleMs ?? IDLE_RELEASE_MS)) {
			this.held.delete(key);
			return;
		}
		h.polls++;
		try {
			const r = await this.options.poll(h.path);
			h.failing = r.status >= 500;
			h.lastError = r.status === 200 ? undefined : errorOf(r.body);
			if (r.status === 429) h.refusal = { status: 409, reason: `quota exhausted: ${h.lastError}` };
			else if (r.status === 403)
				h.refusal = { status: 403, reason: `package not entitled: ${h.lastError}` };
			else if (r.status < 400) h.refusal = undefined;
		} catch (err) {
			h.failing = true;
			h.lastError = (err as Error).message;
		}
		if (this.held.get(key) !== h) return;
		const wait = this.options.isMarketOpen() ? this.options.pollMs : CLOSED_POLL_MS;
		h.timer = setTimeout(() => void this.pollOnce(key, h), h.failing ? Math.max(wait, 2000) : wait);
		h.timer.unref?.();
	}

	/** What is held, for the /integrations page and tests. */
	list(): { key: string; polls: number; failing: boolean; refusal?: HoldingRefusal }[] {
		return [...this.held].map(([key, h]) => ({
			key,
			polls: h.polls,
			failing: h.failing,
			refusal: h.refusal
		}));
	}

	close(): void {
		for (const h of this.held.values()) clearTimeout(h.timer);
		this.held.clear();
	}
}
