/**
 * Backfilled against live decoding: a day recorded by the server (SessionRecorder on the update
 * tap), answered by backfillResponse and streamed to the worker loop in small pieces, decodes to
 * the very updates (same order, same numbers) the live path decodes from the same frames as the
 * relay sent them to a viewer connected from the open.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORDERFLOW_FIELDS } from '../../contract/orderflowFields';
import type { OrderflowBody } from '../../contract/schemas';
import { encodeRelayFrame } from '../../relay/relayFrame';
import { pieces, run, streamed } from '../../stream/backfill/backfillStream.test-support';
import { decodeRelayMessage } from '../../stream/transport/relayDecode';
import type { StreamUpdate } from '../../stream/transport/updates';
import { spxChain } from '../../wire/arbitraries.test-support';
import { encodeFrame, initWireEncoder } from '../../wire/encode';
import { UpdateTap } from '../updates/tap';
import { answerBytes, backfillResponse } from './backfillResponse';
import { SessionRecorder } from './sessionRecorder';

const OPEN = 1795446000; // 2026-11-23 09:30 ET
beforeAll(() => initWireEncoder());

describe('backfilled against live decoding of the same frames', () => {
	let dir: string;
	let recorder: SessionRecorder;
	beforeEach(() => {
		dir = mkdtempSync(join(tmpdir(), 'gexdeck-backfill-live-'));
		recorder = new SessionRecorder({ root: dir });
	});
	afterEach(() => {
		recorder.close();
		rmSync(dir, { recursive: true, force: true });
	});

	it('a recorded day streamed in small pieces decodes to the numbers the live path decodes', async () => {
		const tap = new UpdateTap();
		recorder.attach(tap);
		const orderflow = (ts: number): OrderflowBody => {
			const body: Record<string, number | string> = { timestamp: ts, ticker: 'SPX', spot: 7101.25 };
			ORDERFLOW_FIELDS.forEach((f, i) => {
				body[f.rest] =
					f.scale.type === 'uint32' ? 7000 + i * 5 : ((ts * 37 + i * 11) % 2001) - 1000.5;
			});
			return body as OrderflowBody;
		};
		// What the relay sent a viewer connected from the open, frame by frame.
		const live: StreamUpdate[] = [];
		const send = (group: string, any: Uint8Array, receivedAt: number) => {
			tap.publish({ source: 'stream', group, receivedAt, any });
			const outcome = decodeRelayMessage(encodeRelayFrame(group, any));
			if (!outcome.ok) throw new Error(outcome.error);
			live.push(outcome.update);
		};
		for (let s = 0; s < 40; s++) {
			const ts = OPEN + s;
			const chain = { ...spxChain(60, s + 1), timestamp: ts, spot: 7100 + s / 4 };
			send('SPX_classic_gex_full', encodeFrame('gex', chain), ts * 1000 + 100);
			send(
				'SPX_spot',
				encodeFrame('spot', { ticker: 'SPX', timestamp: ts, spot: 7100 + s / 4 }),
				ts * 1000 + 200
			);
		}
		const answer = await backfillResponse(
			recorder,
			'SPX',
			'classic_gex_full',
			new URLSearchParams('with=spot')
		);
		expect(answer.status).toBe(200);
		const body = await answerBytes(answer);
		const cuts = Array.from({ length: 50 }, (_, i) => Math.floor((i * body.length) / 50) + 3);
		const { reply, updates } = await run(
			streamed(pieces(body, cuts), answer.headers as Record<string, string>)
		);
		expect(reply).toMatchObject({ ok: true, corrupt: 0 });
		// Same updates, same order, same numbers: typed arrays compared element by element.
		expect(updates).toEqual(live);

		// Orderflow (scalars only) likewise.
		const flows: StreamUpdate[] = [];
		for (let s = 0; s < 40; s++) {
			const any = encodeFrame('orderflow', orderflow(OPEN + s));
			tap.publish({
				source: 'stream',
				group: 'SPX_orderflow_orderflow',
				receivedAt: Date.now(),
				any
			});
			const outcome = decodeRelayMessage(encodeRelayFrame('SPX_orderflow_orderflow', any));
			if (outcome.ok) flows.push(outcome.update);
		}
		const of = await backfillResponse(
			recorder,
			'SPX',
			'orderflow_orderflow',
			new URLSearchParams()
		);
		const ofBody = await answerBytes(of);
		const streamedFlows = await run(streamed(pieces(ofBody, [7, 500, 501, 2048])));
		expect(streamedFlows.updates).toHaveLength(40);
		expect(streamedFlows.updates).toEqual(flows);
	});
});
