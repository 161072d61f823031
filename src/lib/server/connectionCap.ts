/**
 * A cap on simultaneous long requests of one kind (backfill answers on /history, the SSE streams
 * of /alerts/events): past it, the request is answered 503 with Retry-After at once instead of
 * holding descriptors and memory the server needs for everything else (/healthz included).
 */

export class ConnectionCap {
	private open = 0;

	constructor(
		readonly max: number,
		/** Seconds a refused client is told to wait. */
		readonly retryAfterSeconds: number
	) {}

	get size(): number {
		return this.open;
	}

	/** A slot (call the returned release once, any number of times), or undefined when full. */
	acquire(): (() => void) | undefined {
		if (this.open >= this.max) return undefined;
		this.open++;
		let held = true;
		return () => {
			if (!held) return;
			held = false;
			this.open--;
		};
	}

	/** The JSON body of the 503 a request past the cap gets. */
	busyText(what: string): string {
		return JSON.stringify({
			error: `Too many ${what} open at once (${this.max}); try again shortly.`
		});
	}

	/** The 503 a request past the cap gets. */
	busy(what: string): Response {
		return new Response(this.busyText(what), {
			status: 503,
			headers: {
				'content-type': 'application/json',
				'cache-control': 'no-store',
				'retry-after': String(this.retryAfterSeconds)
			}
		});
	}
}

/**
 * `body` as a stream that calls `release` once it ends, fails or is cancelled (the client left),
 * so a slot is held exactly as long as the answer is.
 */
export function releasingStream(
	body: ReadableStream<Uint8Array>,
	release: () => void
): ReadableStream<Uint8Array> {
	const reader = body.getReader();
	return new ReadableStream<Uint8Array>({
		async pull(controller) {
			try {
				const { done, value } = await reader.read();
				if (done) {
					release();
					controller.close();
				} else controller.enqueue(value);
			} catch (e) {
				release();
				controller.error(e);
			}
		},
		async cancel(reason) {
			release();
			await reader.cancel(reason);
		}
	});
}

/** Backfill answers streaming at once, over every client. */
export const historyStreams = new ConnectionCap(32, 2);
/** Alert firing streams (one per open tab). */
export const alertEventStreams = new ConnectionCap(64, 30);
