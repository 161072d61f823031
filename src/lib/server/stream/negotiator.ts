/**
 * The two negotiation requests the relay makes upstream: POST /negotiate (takes the slot, gets
 * authorized hub URLs) and PATCH /negotiate (replaces the complete membership set on the live
 * connections). Every request carries the key, the User-Agent and Accept.
 */
import type { Membership } from '../../contract/hubs';

/**
 * The most of an answer read: a negotiation answer is a few hub addresses or an error (well under
 * 4 KB). A longer body is an upstream fault, not something to hold in memory whole.
 */
export const MAX_ANSWER_BYTES = 64 * 1024;

export interface NegotiatorOptions {
	/** Upstream base URL including the version prefix, e.g. `https://api.gex.bot/v2`. */
	baseUrl: string;
	/** A custom-script key (`gexbot_custom_...`): the relay holds that key's slot. */
	key: string;
	/** `gexdeck/<version>` */
	userAgent: string;
	/** Request timeout; negotiation is not a 1 s snapshot route, so allow more. */
	timeoutMs?: number;
	fetch?: typeof fetch;
}

/** An upstream answer that is not a success, or a network failure (status 0). */
export class NegotiationError extends Error {
	constructor(
		readonly status: number,
		message: string,
		readonly retryAfterMs?: number
	) {
		super(message);
		this.name = 'NegotiationError';
	}

	/** Worth retrying later (network, 429, 5xx); a 400/401/403 needs a change first. */
	get transient(): boolean {
		return this.status === 0 || this.status === 408 || this.status === 429 || this.status >= 500;
	}
}

export interface PatchAnswer {
	updatedGroups: number;
	hubs: Record<string, number>;
}

export class Negotiator {
	readonly url: string;
	private readonly fetchImpl: typeof fetch;

	constructor(private readonly options: NegotiatorOptions) {
		this.url = `${options.baseUrl.replace(/\/+$/, '')}/negotiate`;
		this.fetchImpl = options.fetch ?? fetch;
	}

	/** POST: takes the account's slot (kicks its other connections); hub -> URL. */
	async post(groups: readonly string[]): Promise<Record<string, string>> {
		const json = await this.request('POST', { groups });
		const urls = (json as { websocket_urls?: unknown }).websocket_urls;
		if (typeof urls !== 'object' || urls === null) {
			throw new NegotiationError(502, 'negotiate answered without websocket_urls');
		}
		const out: Record<string, string> = {};
		for (const [hub, url] of Object.entries(urls)) if (typeof url === 'string') out[hub] = url;
		return out;
	}

	/** PATCH: the complete membership set (omitted memberships are dropped). */
	async patch(memberships: readonly Membership[]): Promise<PatchAnswer> {
		const json = (await this.request('PATCH', { groups: memberships })) as {
			updated_groups?: unknown;
			hubs?: unknown;
		};
		return {
			updatedGroups: typeof json.updated_groups === 'number' ? json.updated_groups : 0,
			hubs: (typeof json.hubs === 'object' && json.hubs !== null ? json.hubs : {}) as Record<
				string,
				number
			>
		};
	}

	private async request(method: 'POST' | 'PATCH', body: unknown): Promise<unknown> {
		// The deadline covers the whole answer, body included, and is held here until it is read.
		// Neither fetch's abort nor AbortSignal.timeout() can be relied on for the body: undici
		// and Node hold the pieces that carry an abort to a body being read only weakly, and after
		// a collection a body trickling in was waited for without end (bodyText, below).
		const ms = this.options.timeoutMs ?? 10_000;
		const controller = new AbortController();
		const deadline = setTimeout(
			() =>
				controller.abort(
					new DOMException('The operation was aborted due to timeout', 'TimeoutError')
				),
			ms
		);
		try {
			return await this.answer(method, body, controller.signal);
		} finally {
			clearTimeout(deadline);
		}
	}

	private async answer(
		method: 'POST' | 'PATCH',
		body: unknown,
		signal: AbortSignal
	): Promise<unknown> {
		let res: Response;
		try {
			res = await this.fetchImpl(this.url, {
				method,
				headers: {
					Authorization: `Bearer ${this.options.key}`,
					'User-Agent': this.options.userAgent,
					Accept: 'application/json',
					'Content-Type': 'application/json'
				},
				body: JSON.stringify(body),
				// A redirect would carry the key's POST to wherever it points: refuse it.
				redirect: 'error',
				signal
			});
		} catch (e) {
			// fetch's own message is just "fetch failed"; the cause says what (refused, redirect).
			const cause = (e as { cause?: { message?: unknown } }).cause?.message;
			const why =
				typeof cause === 'string' ? `${(e as Error).message}: ${cause}` : (e as Error).message;
			throw new NegotiationError(0, `negotiate ${method} failed: ${why}`);
		}
		// The timeout covers the body too: an answer that trickles in, is cut off or runs past
		// MAX_ANSWER_BYTES is a network failure (retried later), not an empty answer.
		let text: string;
		try {
			text = await bodyText(res, signal);
		} catch (e) {
			throw new NegotiationError(
				0,
				`negotiate ${method}: the answer (${res.status}) was cut off: ${(e as Error).message}`
			);
		}
		let json: unknown;
		try {
			json = text ? JSON.parse(text) : {};
		} catch {
			json = undefined;
		}
		if (!res.ok) {
			const error = (json as { error?: unknown } | undefined)?.error;
			const retryAfter = Number(res.headers.get('retry-after'));
			throw new NegotiationError(
				res.status,
				typeof error === 'string' ? error : `negotiate ${method} answered ${res.status}`,
				Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined
			);
		}
		if (json === undefined)
			throw new NegotiationError(502, `negotiate ${method}: body is not JSON`);
		return json;
	}
}

/**
 * The answer's body as text, read until it ends or `signal` aborts: the reader is cancelled
 * from here on abort (which ends the read and drops the connection), whatever fetch still holds.
 * A body over MAX_ANSWER_BYTES is cancelled there, and refused.
 */
async function bodyText(res: Response, signal: AbortSignal): Promise<string> {
	if (!res.body) return '';
	const reader = res.body.getReader();
	const cancel = () => void reader.cancel(signal.reason).catch(() => undefined);
	if (signal.aborted) cancel();
	else signal.addEventListener('abort', cancel, { once: true });
	const chunks: Uint8Array[] = [];
	let bytes = 0;
	try {
		for (;;) {
			const { done, value } = await reader.read();
			if (done) break;
			bytes += value.byteLength;
			if (bytes > MAX_ANSWER_BYTES) {
				void reader.cancel().catch(() => undefined);
				throw new Error(`longer than ${MAX_ANSWER_BYTES} bytes`);
			}
			chunks.push(value);
		}
	} finally {
		signal.removeEventListener('abort', cancel);
	}
	if (signal.aborted) throw signal.reason;
	return new TextDecoder().decode(Buffer.concat(chunks));
}
