/**
 * Webhook delivery of alert firings: the four message shapes (generic JSON, Discord, Slack,
 * ntfy), and a sender that retries with exponential backoff and jitter and gives up after a
 * bound, keeping per-webhook health for the rules page.
 *
 * Requests go only to the URL the user entered: redirects are never followed (`redirect:
 * 'manual'`, a 3xx counts as a failure), and nothing in a firing can change the URL.
 */
import type { Webhook } from '../../alerts/rules';
import type { AlertFiring } from '../../alerts/firing';

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
	fetch?: typeof fetch;
	/** Attempts per delivery before giving up (default 5). */
	maxAttempts?: number;
	/** First retry delay and cap (default 1 s, 30 s); jitter is half the step. */
	baseDelayMs?: number;
	maxDelayMs?: number;
	timeoutMs?: number;
	userAgent?: string;
	random?: () => number;
	log?: (message: string) => void;
}

/** A status that is not worth retrying: the receiver refuses this request as such. */
function permanent(status: number): boolean {
	return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

export class WebhookSender {
	private readonly health = new Map<string, WebhookHealth>();
	private readonly timers = new Set<ReturnType<typeof setTimeout>>();
	private closed = false;

	constructor(private readonly options: SenderOptions = {}) {}

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

	/**
	 * Delivers a firing to a webhook in the background; resolves with true once delivered,
	 * false when given up (never rejects).
	 */
	send(hook: Webhook, firing: AlertFiring, maxAttempts?: number): Promise<boolean> {
		const h = this.healthOf(hook.id);
		h.pending++;
		const req = webhookRequest(hook, firing);
		return this.attempt(hook, req, 1, maxAttempts ?? this.options.maxAttempts ?? 5).then((ok) => {
			h.pending--;
			if (ok) h.delivered++;
			else {
				h.failed++;
				this.options.log?.(`alerts: webhook ${hook.name} (${hook.id}) gave up on ${firing.id}`);
			}
			return ok;
		});
	}

	private async attempt(
		hook: Webhook,
		req: WebhookRequest,
		n: number,
		max: number
	): Promise<boolean> {
		if (this.closed) return false;
		const h = this.healthOf(hook.id);
		const fetcher = this.options.fetch ?? fetch;
		let status = 0;
		let error: string;
		try {
			const res = await fetcher(hook.url, {
				method: 'POST',
				headers: { ...req.headers, 'user-agent': this.options.userAgent ?? 'gexdeck' },
				body: req.body,
				redirect: 'manual',
				signal: AbortSignal.timeout(this.options.timeoutMs ?? 5000)
			});
			status = res.status;
			// The body is not needed; release the connection.
			await res.body?.cancel().catch(() => undefined);
			if (status >= 200 && status < 300) {
				h.consecutiveFailures = 0;
				h.lastOkAt = Date.now();
				return true;
			}
			error =
				status >= 300 && status < 400
					? `answered a redirect (${status}); redirects are not followed`
					: `answered ${status}`;
		} catch (e) {
			error =
				e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
		}
		h.consecutiveFailures++;
		h.lastError = error;
		h.lastErrorAt = Date.now();
		if (this.closed || n >= max || permanent(status)) return false;
		const base = this.options.baseDelayMs ?? 1000;
		const step = Math.min(this.options.maxDelayMs ?? 30_000, base * 2 ** (n - 1));
		const delay = step / 2 + ((this.options.random ?? Math.random)() * step) / 2;
		await new Promise<void>((resolve) => {
			const timer = setTimeout(() => {
				this.timers.delete(timer);
				resolve();
			}, delay);
			timer.unref?.();
			this.timers.add(timer);
		});
		return this.attempt(hook, req, n + 1, max);
	}

	/** Stops retrying (pending deliveries give up at their next step). */
	close(): void {
		this.closed = true;
	}
}
