import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeRelayFrame, parseRelayFrame, RELAY_FRAME_VERSION } from './relayFrame';

const groupArb = fc.stringMatching(/^[A-Za-z0-9_]{1,64}$/);

describe('relay frame', () => {
	it('round-trips any group and payload, the payload as a zero-copy view', () => {
		fc.assert(
			fc.property(groupArb, fc.uint8Array({ maxLength: 2048 }), (group, any) => {
				const frame = encodeRelayFrame(group, any);
				const p = parseRelayFrame(frame);
				expect(p.ok).toBe(true);
				if (!p.ok) return;
				expect(p.frame.group).toBe(group);
				expect(Array.from(p.frame.any)).toEqual(Array.from(any));
				expect(p.frame.any.buffer).toBe(frame.buffer);
			})
		);
	});

	it('never throws on arbitrary bytes, and refuses truncation and other versions', () => {
		fc.assert(
			fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
				const p = parseRelayFrame(bytes);
				if (p.ok) expect(p.frame.group.length).toBeGreaterThan(0);
			})
		);
		const frame = encodeRelayFrame('SPX_classic_gex_full', new Uint8Array([1, 2, 3]));
		expect(parseRelayFrame(frame.subarray(0, 10))).toMatchObject({
			ok: false,
			error: expect.stringMatching(/truncated/)
		});
		const other = frame.slice();
		other[0] = RELAY_FRAME_VERSION + 2;
		expect(parseRelayFrame(other)).toMatchObject({
			ok: false,
			error: expect.stringMatching(/version/)
		});
		expect(parseRelayFrame(new Uint8Array([1, 0]))).toMatchObject({ ok: false });
		expect(parseRelayFrame(new Uint8Array([1, 0, 0]))).toMatchObject({ ok: false });
	});

	it('refuses group names no group can have', () => {
		expect(() => encodeRelayFrame('', new Uint8Array())).toThrow(RangeError);
		expect(() => encodeRelayFrame('X'.repeat(65), new Uint8Array())).toThrow(RangeError);
	});
});

describe('relay frame with a sequence (cluster mode)', () => {
	const seqArb = fc
		.tuple(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }))
		.map(([ms, n]) => `${ms}-${n}`);

	it('round-trips group, sequence and payload', () => {
		fc.assert(
			fc.property(groupArb, seqArb, fc.uint8Array({ maxLength: 512 }), (group, seq, any) => {
				const p = parseRelayFrame(encodeRelayFrame(group, any, seq));
				expect(p).toMatchObject({ ok: true, frame: { group, seq } });
				if (p.ok) expect(Array.from(p.frame.any)).toEqual(Array.from(any));
			})
		);
		const plain = parseRelayFrame(encodeRelayFrame('SPX_classic_gex_full', new Uint8Array([7])));
		expect(plain.ok && plain.frame.seq).toBe(undefined);
	});

	it('refuses a sequence that is not a stream id, and a frame cut inside it', () => {
		expect(() => encodeRelayFrame('SPX_spot', new Uint8Array(), '12')).toThrow(RangeError);
		const frame = encodeRelayFrame('SPX_spot', new Uint8Array([1, 2]), '1700000000000-3');
		expect(parseRelayFrame(frame.subarray(0, 15))).toMatchObject({
			ok: false,
			error: expect.stringMatching(/truncated inside the sequence|not a stream id/)
		});
		const bad = frame.slice();
		bad[3 + 'SPX_spot'.length + 1] = 'x'.charCodeAt(0);
		expect(parseRelayFrame(bad)).toMatchObject({
			ok: false,
			error: expect.stringMatching(/stream id/)
		});
	});
});
