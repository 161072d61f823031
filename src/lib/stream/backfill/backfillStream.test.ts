/**
 * The streamed backfill: a body cut into arbitrary pieces splits and decodes exactly like the
 * whole body, and the worker's loop (streamBackfill) over a real Response posts batches with
 * growing progress and a reply that together hold every update once. (Backfilled against live
 * decoding of a recorded day: src/lib/server/recorder/backfillLive.test.ts.)
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
	BACKFILL_FRAME,
	BACKFILL_SNAPSHOT,
	BackfillSplitter,
	encodeBackfill,
	splitBackfill
} from '../../relay/backfillBody';
import { spxChain } from '../../wire/arbitraries.test-support';
import { encodeFrame, initWireEncoder } from '../../wire/encode';
import { BackfillDecoder, decodeBackfill, streamBackfill } from './backfill';
import type { BackfillWorkerMessage } from './backfillMessages';
import { pieces, run, streamed } from './backfillStream.test-support';

const OPEN = 1795446000; // 2026-11-23 09:30 ET
beforeAll(() => initWireEncoder());

const entryArb = fc.record({
	kind: fc.constantFrom(BACKFILL_FRAME, BACKFILL_SNAPSHOT),
	group: fc.stringMatching(/^[A-Z]{1,5}_[a-z_]{1,20}$/),
	bytes: fc.uint8Array({ maxLength: 200 })
});

describe('streamed backfill', () => {
	it('splits a body cut anywhere into the same entries as the whole body (property)', () => {
		fc.assert(
			fc.property(
				fc.array(entryArb, { maxLength: 12 }),
				fc.array(fc.nat(), { maxLength: 12 }),
				(entries, cuts) => {
					const body = encodeBackfill(entries);
					const splitter = new BackfillSplitter();
					const got = pieces(body, cuts).flatMap((p) => splitter.push(p));
					splitter.end();
					const want = splitBackfill(body);
					expect(got.map((e) => e.kind)).toEqual(want.map((e) => e.kind));
					got.forEach((e, i) => expect([...e.frame]).toEqual([...want[i].frame]));
				}
			)
		);
	});

	it('decodes any bytes cut anywhere like the whole body, never throwing (property)', () => {
		const chain = { ...spxChain(12, 4), timestamp: OPEN };
		const valid = encodeBackfill([
			{ kind: BACKFILL_FRAME, group: 'SPX_classic_gex_full', bytes: encodeFrame('gex', chain) },
			{ kind: BACKFILL_FRAME, group: 'SPX_classic_gex_full', bytes: new Uint8Array([1, 2]) }
		]);
		fc.assert(
			fc.property(
				fc.oneof(
					fc.uint8Array({ maxLength: 300 }),
					fc.nat(valid.length).map((n) => valid.slice(0, n))
				),
				fc.array(fc.nat(), { maxLength: 8 }),
				(body, cuts) => {
					const decoder = new BackfillDecoder();
					for (const p of pieces(body, cuts)) decoder.push(p);
					decoder.end();
					const whole = decodeBackfill(body);
					expect(decoder.updates).toEqual(whole.updates);
					expect(decoder.corrupt).toBe(whole.corrupt);
				}
			)
		);
	});

	it('posts batches with growing progress, then a reply; together every update once', async () => {
		const frames = Array.from({ length: 30 }, (_, s) => ({
			kind: BACKFILL_FRAME as typeof BACKFILL_FRAME,
			group: 'SPX_classic_gex_full',
			bytes: encodeFrame('gex', { ...spxChain(8, s + 1), timestamp: OPEN + s })
		}));
		const body = encodeBackfill(frames);
		// A clock that says every piece took a whole batch's worth of decoding.
		let t = 0;
		const { batches, reply, updates, transfers } = await run(
			streamed(pieces(body, [100, 900, 2000, 4000, 6000]), {
				'x-gexdeck-records': '30',
				'x-gexdeck-day': '2026-11-23'
			}),
			() => (t += 20)
		);
		expect(batches.length).toBeGreaterThan(1);
		const records = batches.map((b) => b.progress.records);
		expect(records).toEqual([...records].sort((a, b) => a - b));
		expect(batches.every((b) => b.progress.total === 30)).toBe(true);
		expect(batches.at(-1)!.progress.bytes).toBeLessThanOrEqual(body.length);
		expect(reply).toMatchObject({ ok: true, corrupt: 0, bytes: body.length, day: '2026-11-23' });
		expect(updates.map((u) => u.timestamp)).toEqual(frames.map((_, s) => OPEN + s));
		expect(updates).toEqual(decodeBackfill(body).updates);
		// Every chain's typed arrays travel as transferables, none twice.
		const buffers = transfers.flat();
		expect(buffers.length).toBe(30 * 5);
		expect(new Set(buffers).size).toBe(buffers.length);
	});

	it('answers a refused or failed request with its status and reason', async () => {
		const refused = await run(
			new Response(
				JSON.stringify({ error: 'SPX classic_gex_full was not recorded on 2026-11-20.' }),
				{
					status: 404
				}
			)
		);
		expect(refused.messages).toEqual([
			{
				id: 7,
				ok: false,
				status: 404,
				error: 'SPX classic_gex_full was not recorded on 2026-11-20.'
			}
		]);
		const messages: BackfillWorkerMessage[] = [];
		await streamBackfill(
			8,
			() => Promise.reject(new TypeError('Failed to fetch')),
			(m) => messages.push(m)
		);
		expect(messages).toEqual([{ id: 8, ok: false, status: 0, error: 'Failed to fetch' }]);
	});
});
