import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UrlSigner } from './signing';

describe('UrlSigner', () => {
	it('accepts its own links until they expire, and nothing altered', () => {
		let wall = Date.parse('2026-11-20T15:00:00Z');
		const signer = new UrlSigner(Buffer.alloc(32, 7), 900, () => wall);
		const path = '/download/hist/SPX/classic/gex_full/2026-11-19.json';
		const query = new URLSearchParams(signer.sign(path));
		expect(signer.verify(path, query)).toBe('ok');
		expect(signer.verify(path.replace('SPX', 'NDX'), query)).toBe('invalid');
		const later = new URLSearchParams(query);
		later.set('expires', String(Number(query.get('expires')) + 3600));
		expect(signer.verify(path, later)).toBe('invalid');
		wall += 901_000;
		expect(signer.verify(path, query)).toBe('expired');
		expect(new UrlSigner(Buffer.alloc(32, 8), 900, () => wall).verify(path, query)).toBe('invalid');
	});

	it('never accepts an arbitrary signature', () => {
		const signer = new UrlSigner();
		fc.assert(
			fc.property(fc.string(), fc.string(), fc.integer(), (path, signature, expires) => {
				const q = new URLSearchParams({ expires: String(expires), signature });
				expect(signer.verify(path, q)).not.toBe('ok');
			})
		);
	});
});
