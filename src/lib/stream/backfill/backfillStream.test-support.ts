/**
 * Test helpers for the streamed backfill: a body cut into pieces, a Response that delivers them
 * like the network, and the worker loop (streamBackfill) run over it with what it posted.
 */
import { streamBackfill } from './backfill';
import type { BackfillBatch, BackfillReply, BackfillWorkerMessage } from './backfillMessages';

/** `bytes` cut before each of `cuts` (positions, any order, duplicates allowed). */
export function pieces(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
	const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
	const out: Uint8Array[] = [];
	let from = 0;
	for (const c of [...at, bytes.length]) {
		out.push(bytes.slice(from, c));
		from = c;
	}
	return out;
}

/** A Response whose body arrives in `parts`, like a fetch reading the network. */
export function streamed(parts: Uint8Array[], headers: Record<string, string> = {}, status = 200) {
	const body = new ReadableStream<Uint8Array>({
		start(controller) {
			for (const p of parts) controller.enqueue(p);
			controller.close();
		}
	});
	return new Response(body, { status, headers });
}

export async function run(res: Response, now?: () => number) {
	const messages: BackfillWorkerMessage[] = [];
	const transfers: ArrayBuffer[][] = [];
	await streamBackfill(
		7,
		() => Promise.resolve(res),
		(m, t) => {
			messages.push(m);
			transfers.push(t);
		},
		now
	);
	const batches = messages.filter((m): m is BackfillBatch => 'batch' in m);
	const reply = messages.at(-1) as BackfillReply;
	const updates = [...batches.flatMap((b) => b.updates), ...(reply.ok ? reply.updates : [])];
	return { messages, batches, reply, updates, transfers };
}
