/**
 * The backfill body: entries round-trip through encode/split, any byte string decodes without
 * throwing (corrupt input is counted), and recorded frames decode to the same updates as the
 * live path.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { spxChain } from '../../wire/arbitraries.test-support';
import { encodeFrame, initWireEncoder } from '../../wire/encode';
import {
	BACKFILL_FRAME,
	BACKFILL_SNAPSHOT,
	encodeBackfill,
	splitBackfill
} from '../../relay/backfillBody';
import { decodeBackfill } from './backfill';
import { decodeRelayMessage } from '../transport/relayDecode';
import { parseRelayFrame } from '../../relay/relayFrame';

beforeAll(() => initWireEncoder());

describe('backfill body', () => {
	it('round-trips entries (property)', () => {
		fc.assert(
			fc.property(
				fc.array(
					fc.record({
						kind: fc.constantFrom(BACKFILL_FRAME, BACKFILL_SNAPSHOT),
						group: fc.stringMatching(/^[A-Z]{1,5}_[a-z_]{1,20}$/),
						bytes: fc.uint8Array({ maxLength: 300 })
					}),
					{ maxLength: 20 }
				),
				(entries) => {
					const split = splitBackfill(encodeBackfill(entries));
					expect(split.map((s) => s.kind)).toEqual(entries.map((e) => e.kind));
					split.forEach((s, i) => {
						const p = parseRelayFrame(s.frame);
						expect(p.ok && p.frame.group).toBe(entries[i].group);
						expect(p.ok && [...p.frame.any]).toEqual([...entries[i].bytes]);
					});
				}
			)
		);
	});

	it('never throws on arbitrary bytes', () => {
		fc.assert(
			fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
				const out = decodeBackfill(bytes);
				expect(out.updates.length + out.corrupt).toBeGreaterThanOrEqual(0);
			})
		);
		expect(decodeBackfill(new Uint8Array([1, 0, 0, 0, 9, 1])).corrupt).toBe(1);
		expect(decodeBackfill(new Uint8Array([7, 0, 0, 0, 0])).corrupt).toBe(1);
	});

	it('decodes recorded frames like live ones, and snapshots into the same kind of update', () => {
		const chain = { ...spxChain(30, 2), timestamp: 1795446000 };
		const any = encodeFrame('gex', chain);
		const body = encodeBackfill([
			{ kind: BACKFILL_FRAME, group: 'SPX_classic_gex_full', bytes: any },
			{
				kind: BACKFILL_SNAPSHOT,
				group: 'SPX_classic_gex_zero',
				bytes: new TextEncoder().encode(JSON.stringify(chain))
			}
		]);
		const decoded = decodeBackfill(body);
		expect(decoded.corrupt).toBe(0);
		const live = decodeRelayMessage(splitBackfill(body)[0].frame);
		expect(live.ok && live.update).toEqual(decoded.updates[0]);
		const [fromFrame, fromSnapshot] = decoded.updates;
		expect(fromSnapshot.kind).toBe('gex');
		expect(fromSnapshot.group).toBe('SPX_classic_gex_zero');
		if (fromFrame.kind === 'gex' && fromSnapshot.kind === 'gex') {
			expect([...fromSnapshot.value.strikes]).toEqual([...fromFrame.value.strikes]);
			expect(fromSnapshot.value.zeroGamma).toBe(fromFrame.value.zeroGamma);
		}
	});
});
