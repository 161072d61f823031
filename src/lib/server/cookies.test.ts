/**
 * The dashboard's cookie parser (request gate, /api fast path, /stream upgrade): RFC 6265 values,
 * quoted or not, first occurrence wins, and nothing a client sends can make it throw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cookieValue, parseCookies } from './cookies';

describe('parseCookies', () => {
	it('reads a quoted value (RFC 6265 cookie-value = DQUOTE *cookie-octet DQUOTE) unquoted', () => {
		expect(cookieValue('gexdeck_session="abc123"', 'gexdeck_session')).toBe('abc123');
		expect(cookieValue('a=1; gexdeck_csrf="t0k%2Fen"; b=2', 'gexdeck_csrf')).toBe('t0k/en');
		expect(cookieValue('x=""', 'x')).toBe('');
		// A lone quote, or quotes inside, are the value's own characters.
		expect(cookieValue('x="', 'x')).toBe('"');
		expect(cookieValue('x=a"b"', 'x')).toBe('a"b"');
		expect(cookieValue('x="ab', 'x')).toBe('"ab');
	});

	it('keeps the first occurrence of a name and trims the spaces around names and values', () => {
		const c = parseCookies('  a = 1 ;a=2; b=two=2;;=nameless; c; secure');
		expect([...c]).toEqual([
			['a', '1'],
			['b', 'two=2']
		]);
		expect(parseCookies(['a=1', 'a=3; d=4'])).toEqual(
			new Map([
				['a', '1'],
				['d', '4']
			])
		);
	});

	it('decodes percent-escapes and keeps a malformed one as sent', () => {
		expect(cookieValue('s=%E2%9C%93', 's')).toBe('✓');
		expect(cookieValue('gexdeck_session=%', 'gexdeck_session')).toBe('%');
		expect(cookieValue('s=%E2%9C', 's')).toBe('%E2%9C');
	});

	it('answers nothing for an absent or empty header, or an absent name', () => {
		for (const h of [undefined, null, '', [] as string[]]) expect(parseCookies(h).size).toBe(0);
		expect(cookieValue('a=1', 'b')).toBeUndefined();
	});

	it('never throws, and a value set as sent reads back', () => {
		fc.assert(
			fc.property(fc.string(), (header) => {
				parseCookies(header);
			})
		);
		const octet = fc.stringMatching(/^[A-Za-z0-9!#$&'()*+\-./:<>?@[\]^_`{|}~]*$/);
		fc.assert(
			fc.property(octet, fc.boolean(), (value, quoted) => {
				const sent = quoted ? `"${value}"` : value;
				expect(cookieValue(`other=x; name=${sent}`, 'name')).toBe(value);
			})
		);
	});
});
