import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyKey, generateKey, maskKey, parseBearer, slotOf } from './keys';

const SECRET = 'A'.repeat(20) + '_-b'.repeat(7) + '12';

describe('keys', () => {
	it('classifies the three formats', () => {
		expect(SECRET).toHaveLength(43);
		expect(classifyKey(`gexbot_custom_${SECRET}`)).toMatchObject({
			kind: 'custom',
			integration: 'custom'
		});
		expect(classifyKey(`gexbot_tradingview_${SECRET}`)).toMatchObject({
			kind: 'platform',
			integration: 'tradingview'
		});
		expect(classifyKey(`research_${SECRET}`)).toMatchObject({ kind: 'research' });
	});

	it('refuses wrong lengths, alphabets and prefixes', () => {
		expect(classifyKey(`gexbot_custom_${SECRET}x`)).toBeUndefined();
		expect(classifyKey(`gexbot_custom_${SECRET.slice(1)}`)).toBeUndefined();
		expect(classifyKey(`gexbot_custom_${SECRET.slice(1)}=`)).toBeUndefined();
		expect(classifyKey(`other_custom_${SECRET}`)).toBeUndefined();
		expect(classifyKey(`gexbot__${SECRET}`)).toBeUndefined();
		expect(classifyKey(SECRET)).toBeUndefined();
	});

	it('generated keys classify as their kind', () => {
		expect(classifyKey(generateKey('custom'))?.kind).toBe('custom');
		expect(classifyKey(generateKey('research'))?.kind).toBe('research');
		expect(classifyKey(generateKey('platform', 'ninjatrader'))?.integration).toBe('ninjatrader');
		expect(() => generateKey('platform', 'Bad Name')).toThrow(RangeError);
	});

	it('masks to prefix, ellipsis and last four', () => {
		const key = generateKey('custom');
		expect(maskKey(key)).toBe(`gexbot_custom_…${key.slice(-4)}`);
		fc.assert(
			fc.property(fc.string({ minLength: 0, maxLength: 80 }), (s) => {
				const masked = maskKey(s);
				// Never more than 4 secret characters after the ellipsis.
				expect(masked.split('…')[1]?.length ?? 0).toBeLessThanOrEqual(4);
			})
		);
	});

	it('parses the Authorization header', () => {
		expect(parseBearer(undefined)).toEqual({ ok: false, reason: 'missing' });
		expect(parseBearer('')).toEqual({ ok: false, reason: 'missing' });
		expect(parseBearer('Token abc')).toEqual({ ok: false, reason: 'malformed' });
		expect(parseBearer('Basic')).toEqual({ ok: false, reason: 'malformed' });
		expect(parseBearer('Bearer abc')).toEqual({ ok: true, key: 'abc' });
	});

	it('accepts Basic as an alias: the raw key, or base64 of key: (or :key)', () => {
		const key = `gexbot_custom_${SECRET}`;
		expect(parseBearer(`Basic ${key}`)).toEqual({ ok: true, key });
		expect(parseBearer(`basic  ${key} `)).toEqual({ ok: true, key });
		expect(parseBearer(`Basic ${btoa(`${key}:`)}`)).toEqual({ ok: true, key });
		expect(parseBearer(`Basic ${btoa(`:${key}`)}`)).toEqual({ ok: true, key });
		// Not a key either way: passed on as it is, so the registry answers "Invalid API key".
		expect(parseBearer('Basic abc')).toEqual({ ok: true, key: 'abc' });
	});

	it('a raw key is never mistaken for base64 of a credential', () => {
		fc.assert(
			fc.property(fc.constantFrom('custom' as const, 'research' as const), (kind) => {
				const key = generateKey(kind);
				expect(parseBearer(`Basic ${key}`)).toEqual({ ok: true, key });
			})
		);
	});

	it('maps kinds to session slots', () => {
		expect(slotOf('custom')).toBe('custom');
		expect(slotOf('platform')).toBe('platform');
		expect(slotOf('research')).toBeUndefined();
	});
});
