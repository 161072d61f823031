/**
 * GEXDECK_UPSTREAM parsing: what a user may write (http(s), trailing slashes, the version
 * prefix) and the clear error for each thing they may get wrong.
 */
import { describe, expect, it } from 'vitest';
import { parseUpstream } from './config';

describe('parseUpstream', () => {
	it('keeps an http(s) URL ending with the version prefix, trailing slashes removed', () => {
		expect(parseUpstream('https://api.gex.bot/v2')).toBe('https://api.gex.bot/v2');
		expect(parseUpstream(' http://127.0.0.1:8080/v2// ')).toBe('http://127.0.0.1:8080/v2');
		expect(parseUpstream(undefined)).toBeUndefined();
		expect(parseUpstream('  ')).toBeUndefined();
	});

	it('names the variable and the value in every refusal', () => {
		expect(() => parseUpstream('api.gex.bot/v2')).toThrow(
			'GEXDECK_UPSTREAM is not a URL: api.gex.bot/v2'
		);
		expect(() => parseUpstream('ftp://api.gex.bot/v2')).toThrow(
			'GEXDECK_UPSTREAM must be http(s): ftp://api.gex.bot/v2'
		);
		expect(() => parseUpstream('https://u:p@api.gex.bot/v2')).toThrow(
			'GEXDECK_UPSTREAM must not carry credentials, a query or a fragment'
		);
		expect(() => parseUpstream('https://api.gex.bot/v2?x=1')).toThrow(/must not carry/);
		expect(() => parseUpstream('https://api.gex.bot')).toThrow(/must end with the version prefix/);
	});
});
