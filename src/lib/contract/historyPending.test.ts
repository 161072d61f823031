import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { historyPendingBody, parseHistoryPending, parseRetryAfter } from './historyPending';

describe('parseHistoryPending', () => {
	it("reads the service's 504 body", () => {
		expect(
			parseHistoryPending({
				error: 'History for SPX 2026-11-23 is still being generated (79% done); retry in 17 s.',
				status: 'generating',
				position: 0,
				progress: 0.787,
				eta_seconds: 17
			})
		).toEqual({
			state: 'generating',
			position: 0,
			progress: 0.787,
			etaSeconds: 17,
			message: 'History for SPX 2026-11-23 is still being generated (79% done); retry in 17 s.'
		});
		expect(parseHistoryPending({ status: 'queued', position: 3, eta_seconds: 120 })).toMatchObject({
			state: 'queued',
			position: 3,
			progress: 0,
			etaSeconds: 120
		});
	});

	it('is not fooled by other errors: a final error is not progress', () => {
		for (const body of [undefined, null, 'Gateway Timeout', 504, {}, { error: 'timeout' }]) {
			expect(parseHistoryPending(body)).toBeUndefined();
		}
		expect(parseHistoryPending({ status: 'done', progress: 1 })).toBeUndefined();
	});

	it('round-trips its own body and keeps every field in range for any input', () => {
		fc.assert(
			fc.property(
				fc.constantFrom('requesting', 'queued', 'generating'),
				fc.anything(),
				fc.anything(),
				fc.anything(),
				(status, position, progress, eta) => {
					const p = parseHistoryPending({ status, position, progress, eta_seconds: eta })!;
					expect(p.state).toBe(status);
					expect(p.position >= 0 && Number.isInteger(p.position)).toBe(true);
					expect(p.progress >= 0 && p.progress <= 1).toBe(true);
					expect(p.etaSeconds === null || p.etaSeconds >= 0).toBe(true);
					const again = parseHistoryPending(historyPendingBody(p))!;
					expect(again.state).toBe(p.state);
					expect(again.position).toBe(p.position);
					expect(again.etaSeconds).toBe(p.etaSeconds);
					expect(Math.abs(again.progress - p.progress)).toBeLessThanOrEqual(0.0005);
				}
			)
		);
	});
});

describe('parseRetryAfter', () => {
	it('reads seconds and HTTP dates, and nothing else', () => {
		const now = Date.parse('2026-11-24T18:00:00Z');
		expect(parseRetryAfter('17', now)).toBe(17);
		expect(parseRetryAfter(' 0 ', now)).toBe(0);
		expect(parseRetryAfter('2026', now)).toBe(2026);
		expect(parseRetryAfter('Tue, 24 Nov 2026 18:00:30 GMT', now)).toBe(30);
		expect(parseRetryAfter('Tue, 24 Nov 2026 17:00:00 GMT', now)).toBe(0);
		for (const bad of [null, undefined, '', '-3', '1.5', 'soon']) {
			expect(parseRetryAfter(bad, now)).toBeUndefined();
		}
	});
});
