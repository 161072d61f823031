/**
 * The webhook address classifier: every IPv4 notation of an address (inet_aton forms: 1-4
 * parts, decimal, hex, octal) is judged like its dotted form, so `127.1`, `2130706433`,
 * `0x7f000001` and `0177.0.0.1` are loopback; IPv6 ranges and the IPv4-mapped form; the
 * allowlist's syntax.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allowed, blockedReason, parseAllowList, parseIPv4Loose } from './addressPolicy';

const dotted = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
type Radix = 'dec' | 'hex' | 'oct';
const write = (v: number, r: Radix) =>
	r === 'hex' ? `0x${v.toString(16)}` : r === 'oct' ? `0${v.toString(8)}` : String(v);

/** `n` written with `parts` parts (the last filling the remaining bytes), each in its radix. */
function notation(n: number, parts: 1 | 2 | 3 | 4, radix: Radix[]): string {
	const bytes = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
	const head = bytes.slice(0, parts - 1);
	const tail = bytes.slice(parts - 1).reduce((acc, b) => acc * 256 + b, 0);
	return [...head, tail].map((v, i) => write(v, radix[i % radix.length])).join('.');
}

const radixes = fc.array(fc.constantFrom<Radix>('dec', 'hex', 'oct'), {
	minLength: 1,
	maxLength: 4
});
const parts = fc.constantFrom<1 | 2 | 3 | 4>(1, 2, 3, 4);

describe('IPv4 notations', () => {
	it("the issue's notations of loopback", () => {
		for (const a of ['127.1', '2130706433', '0x7f000001', '0177.0.0.1', '127.0.0.1', '0x7f.1'])
			expect(blockedReason(a), a).toBe('loopback');
	});

	it('every notation of any address parses to that address and is judged alike', () => {
		fc.assert(
			fc.property(fc.nat({ max: 0xffffffff }), parts, radixes, (n, p, r) => {
				const text = notation(n, p, r);
				expect(parseIPv4Loose(text)).toBe(dotted(n));
				expect(blockedReason(text)).toBe(blockedReason(dotted(n)));
			})
		);
	});

	it('every notation of a loopback, private or link-local address is refused', () => {
		const ranges: [number, number, string][] = [
			[0x7f000000, 8, 'loopback'],
			[0x0a000000, 8, 'private'],
			[0xac100000, 12, 'private'],
			[0xc0a80000, 16, 'private'],
			[0xa9fe0000, 16, 'link-local'],
			[0xe0000000, 4, 'multicast'],
			[0x00000000, 8, 'unspecified']
		];
		fc.assert(
			fc.property(
				fc.constantFrom(...ranges),
				fc.nat({ max: 0xffffffff }),
				parts,
				radixes,
				([net, prefix, reason], host, p, r) => {
					const n = (net | (host & (2 ** (32 - prefix) - 1))) >>> 0;
					const text = notation(n, p, r);
					expect(blockedReason(text)).toBe(reason);
					// The URL parser (what a webhook URL goes through) agrees on the address.
					expect(new URL(`http://${text}/`).hostname).toBe(dotted(n));
				}
			)
		);
	});

	it('public unicast addresses are not refused', () => {
		for (const a of ['93.184.215.14', '1.1.1.1', '8.8.8.8', '172.32.0.1', '100.128.0.1'])
			expect(blockedReason(a), a).toBeUndefined();
	});

	it('out-of-range parts are not addresses', () => {
		for (const a of ['256.0.0.1', '1.2.3.4.5', '0x100.1', '08.1.1.1', 'example.com'])
			expect(parseIPv4Loose(a), a).toBeUndefined();
	});
});

describe('IPv6', () => {
	it('loopback, unspecified, private, link-local, multicast and reserved ranges', () => {
		const cases: [string, string][] = [
			['::1', 'loopback'],
			['[::1]', 'loopback'],
			['0:0:0:0:0:0:0:1', 'loopback'],
			['::', 'unspecified'],
			['fc00::1', 'private'],
			['fd12:3456::1', 'private'],
			['fe80::1', 'link-local'],
			['ff02::1', 'multicast'],
			['2001:db8::1', 'reserved'],
			['64:ff9b::7f00:1', 'reserved'],
			['2002:7f00:1::', 'reserved']
		];
		for (const [a, reason] of cases) expect(blockedReason(a), a).toBe(reason);
		expect(blockedReason('2606:4700:4700::1111')).toBeUndefined();
	});

	it('an IPv4-mapped address is judged by the IPv4 address inside', () => {
		fc.assert(
			fc.property(fc.nat({ max: 0xffffffff }), (n) => {
				const hex = `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
				expect(blockedReason(`::ffff:${dotted(n)}`)).toBe(blockedReason(dotted(n)));
				expect(blockedReason(`[::ffff:${hex}]`)).toBe(blockedReason(dotted(n)));
			})
		);
		expect(blockedReason('::ffff:127.0.0.1')).toBe('loopback');
	});
});

describe('GEXDECK_WEBHOOK_ALLOW', () => {
	it('names, addresses and CIDR ranges; anything else is an error naming the entry', () => {
		const allow = parseAllowList(' 192.168.1.0/24, host.lan ,::1');
		expect(allowed(allow, '192.168.1.20', '192.168.1.20')).toBe(true);
		expect(allowed(allow, 'x', '192.168.2.20')).toBe(false);
		expect(allowed(allow, 'HOST.lan', '10.0.0.5')).toBe(true);
		expect(allowed(allow, '[::1]', '::1')).toBe(true);
		expect(allowed(allow, 'other.lan', '10.0.0.5')).toBe(false);
		expect(() => parseAllowList('10.0.0.0/33')).toThrow(/10\.0\.0\.0\/33/);
		expect(() => parseAllowList('http://x/')).toThrow(/http:\/\/x\//);
		expect(parseAllowList(undefined).hosts.size).toBe(0);
	});
});
