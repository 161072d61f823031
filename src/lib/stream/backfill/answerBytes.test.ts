import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerBytes, inflated, isGzip } from './answerBytes';

describe('a /history answer body', () => {
	it('is inflated when it is still a gzip stream, and passed through when it is not', async () => {
		await fc.assert(
			fc.asyncProperty(fc.uint8Array({ maxLength: 4096 }), async (body) => {
				const sent = gzipSync(body);
				expect(isGzip(sent)).toBe(true);
				expect(await inflated(sent)).toEqual(body);
				// A body the browser already inflated: ours never start with gzip's magic.
				if (!isGzip(body)) expect(await inflated(body)).toBe(body);
			}),
			{ numRuns: 200 }
		);
	});

	it("reads an answer's bytes either way (SvelteKit's server fetch passes gzip on as sent)", async () => {
		const body = new TextEncoder().encode('GXO2 a day overview');
		const asSent = new Response(gzipSync(body), { headers: { 'content-encoding': 'gzip' } });
		expect(await answerBytes(asSent)).toEqual(body);
		expect(await answerBytes(new Response(body))).toEqual(body);
	});

	it('knows gzip by both of its magic bytes, and a body too short to have them', () => {
		expect(isGzip(new Uint8Array([0x1f, 0x8b]))).toBe(true);
		expect(isGzip(new Uint8Array([0x1f]))).toBe(false);
		expect(isGzip(new Uint8Array([0x1f, 0x00, 0x08]))).toBe(false);
		expect(isGzip(new Uint8Array([0x00, 0x8b, 0x08]))).toBe(false);
		expect(isGzip(new Uint8Array([]))).toBe(false);
	});

	it('refuses a damaged gzip stream instead of passing garbage on', async () => {
		const sent = gzipSync(new Uint8Array(1000).fill(7));
		await expect(inflated(sent.subarray(0, sent.length - 20))).rejects.toThrow();
	});
});
