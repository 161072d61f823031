/**
 * Webhook delivery of alert firings: the four message shapes (generic JSON, Discord, Slack,
 * ntfy), and a sender that retries with exponential backoff and jitter and gives up after a
 * bound, keeping per-webhook health for the rules page.
 *
 * Requests go only to the URL the user entered: redirects are never followed (a 3xx counts as a
 * failure), nothing in a firing can change the URL, and the host must resolve to a public address
 * or one the operator allowed (webhookTarget.ts), checked again at every attempt. Every attempt of
 * the process waits in one bounded queue (deliveryQueue.ts); a failure is kept as a category
 * ("refused", "timed out", "HTTP 500", "blocked address") without address or port.
 */
import type { Webhook } from '../../alerts/rules';
import type { AlertFiring } from '../../alerts/firing';
import { EMPTY_ALLOW, type AllowList } from './addressPolicy';
import { DeliveryQueue } from './deliveryQueue';
import {
	errorCategory,
	postWebhook,
	resolveTarget,
	type PostOptions,
	type Resolver
} from './webhookTarget';

export interface WebhookRequest {
	body: string;
	headers: Record<string, string>;
}

/** The request a webhook of `format` receives for a firing. */
export function webhookRequest(hook: Webhook, f: AlertFiring): WebhookRequest {
	const json = { 'content-type': 'application/json' };
	const title = `${f.test ? '[test] ' : ''}gexdeck: ${f.ruleName || f.description}`;
	const line = `${f.message}${f.link ? ` — ${f.link}` : ''}`;
	switch (hook.format) {
		case 'json':
			return { body: JSON.stringify(f), headers: json };
		case 'discord':
			// Discord execute-webhook: `content` up to 2000 characters.
			return {
				body: JSON.stringify({
					username: 'gexdeck',
					content: `**${title}**\n${line}`.slice(0, 2000),
					allowed_mentions: { parse: [] }
				}),
				headers: json
			};
		case 'slack':
			// Slack incoming webhook: `text` (mrkdwn).
			return { body: JSON.stringify({ text: `*${title}*\n${line}` }), headers: json };
		case 'ntfy': {
			// ntfy publish to a topic URL: the body is the message, metadata in headers.
			const headers: Record<string, string> = {
				'content-type': 'text/plain; charset=utf-8',
				title: title.replace(/[^\x20-\x7e]/g, '?'),
				tags: f.direction === 'down' ? 'chart_with_downwards_trend' : 'chart_with_upwards_trend'
			};
			if (f.link?.startsWith('http')) headers.click = f.link;
			return { body: f.message, headers };
		}
	}
}

export interface WebhookHealth {
	/** Deliveries that succeeded / were given up. */
	delivered: number;
	failed: number;
	/** Attempts that failed since the last success (0 = healthy). */
	consecutiveFailures: number;
	lastOkAt: number | null;
	lastError: string | null;
	lastErrorAt: number | null;
	/** Deliveries still being tried. */
	pending: number;
}

export interface SenderOptions {
	/** Sends one attempt and resolves with the HTTP status (default: postWebhook, real sockets). */
	post?: (url: URL, o: PostOptions) => Promise<number>;
	/** Where webhooks may go besides public addresses (GEXDECK_WEBHOOK_ALLOW). */
	allow?: AllowList;
	/** Name resolution (default: the system's); tests pin names to addresses. */
	resolve?: Resolver;
	/** Attempts per delivery before giving up (default 4). */
	maxAttempts?: number;
	/** First retry delay and cap (default 1 s, 30 s); jitter is half the step. */
	baseDelayMs?: number;
	maxDelayMs?: number;
	timeoutMs?: number;
	/** Attempts in flight at once, over every webhook (default 4), and waiting (default 200). */
	concurrency?: number;
	maxQueued?: number;
	userAgent?: string;
	random?: () => number;
	log?: (message: string) => void;
}

/** A status that is not worth retrying: the receiver refuses this request as such. */
function permanent(status: number): boolean {
	return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/** What one attempt came to: delivered, or a category to show and whether to try again. */
type Outcome = { ok: true } | { ok: false; error: string; retry: boolean };

export class WebhookSender {
	private readonly health = new Map<string, WebhookHealth>();
	private readonly timers = new Map<ReturnType<typeof setTimeout>, () => void>();
	readonly queue: DeliveryQueue;
	private closed = false;

	constructor(private readonly options: SenderOptions = {}) {
		this.queue = new DeliveryQueue(options.concurrency ?? 4, options.maxQueued ?? 200);
	}

	healthOf(id: string): WebhookHealth {
		let h = this.health.get(id);
		if (!h) {
			h = {
				delivered: 0,
				failed: 0,
				consecutiveFailures: 0,
				lastOkAt: null,
				lastError: null,
				lastErrorAt: null,
				pending: 0
			};
			this.health.set(id, h);
		}
		return h;
	}

	forget(id: string): void {
		this.health.delete(id);
	}

	/** Whether `url` may be reached now (resolved and checked); the reason when not. */
	async check(url: string): Promise<string | undefined> {
		try {
			await resolveTarget(new URL(url), this.options.allow ?? EMPTY_ALLOW, this.options.resolve);
			return undefined;
		} catch (e) {
			return errorCategory(e).category;
		}
	}

	/**
	 * Delivers a firing to a webhook in the background through the global queue; resolves with
	 * true once delivered, false when given up or dropped (never rejects).
	 */
	send(hook: Webhook, firing: AlertFiring, maxAttempts?: number): Promise<boolean> {
		const h = this.healthOf(hook.id);
		h.pending++;
		const req = webhookRequest(hook, firing);
		const max = maxAttempts ?? this.options.maxAttempts ?? 4;
		return new Promise<boolean>((done) => {
			const finish = (ok: boolean) => {
				h.pending--;
				if (ok) h.delivered++;
				else {
					h.failed++;
					this.options.log?.(`alerts: webhook ${hook.name} (${hook.id}) gave up on ${firing.id}`);
				}
				done(ok);
			};
			const enqueue = (n: number) => {
				if (this.closed) return finish(false);
				this.queue.push(
					async () => {
						const outcome = await this.attempt(hook, req);
						if (outcome.ok) return finish(true);
						if (this.closed || n >= max || !outcome.retry) return finish(false);
						this.later(n, () => enqueue(n + 1));
					},
					() => {
						this.fail(h, 'dropped: delivery queue full');
						finish(false);
					}
				);
			};
			enqueue(1);
		});
	}

	private fail(h: WebhookHealth, error: string): void {
		h.consecutiveFailures++;
		h.lastError = error;
		h.lastErrorAt = Date.now();
	}

	/** Runs `then` after the backoff of attempt `n` (or at once when the sender closes). */
	private later(n: number, then: () => void): void {
		const base = this.options.baseDelayMs ?? 1000;
		const step = Math.min(this.options.maxDelayMs ?? 30_000, base * 2 ** (n - 1));
		const delay = step / 2 + ((this.options.random ?? Math.random)() * step) / 2;
		const timer = setTimeout(() => {
			this.timers.delete(timer);
			then();
		}, delay);
		timer.unref?.();
		this.timers.set(timer, then);
	}

	private async attempt(hook: Webhook, req: WebhookRequest): Promise<Outcome> {
		const h = this.healthOf(hook.id);
		let outcome: Outcome;
		try {
			const status = await (this.options.post ?? postWebhook)(new URL(hook.url), {
				headers: { ...req.headers, 'user-agent': this.options.userAgent ?? 'gexdeck' },
				body: req.body,
				timeoutMs: this.options.timeoutMs ?? 5000,
				allow: this.options.allow ?? EMPTY_ALLOW,
				resolve: this.options.resolve
			});
			if (status >= 200 && status < 300) outcome = { ok: true };
			else
				outcome = {
					ok: false,
					error:
						status >= 300 && status < 400
							? `HTTP ${status} (a redirect; redirects are not followed)`
							: `HTTP ${status}`,
					retry: !permanent(status)
				};
		} catch (e) {
			const err = errorCategory(e);
			outcome = { ok: false, error: err.category, retry: err.retryable };
		}
		if (outcome.ok) {
			h.consecutiveFailures = 0;
			h.lastOkAt = Date.now();
		} else this.fail(h, outcome.error);
		return outcome;
	}

	/** Stops delivering: waiting and backing-off deliveries give up now. */
	close(): void {
		this.closed = true;
		this.queue.clear();
		for (const [timer, then] of this.timers) {
			clearTimeout(timer);
			then();
		}
		this.timers.clear();
	}
}
