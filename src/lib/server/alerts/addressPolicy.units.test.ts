/**
 * The address classifier row by row and edge by edge: each blocked range at its first and last
 * address with its exact reason, and the address just outside it public; the notation parser's
 * limits (a trailing dot, five parts, a last part one past its bytes, hex and octal that only
 * look so); IPv4-mapped IPv6 only when it is exactly that; literals with spaces, brackets on one
 * side only, upper case; the allowlist's prefixes, names and messages.
 */
import { describe, expect, it } from 'vitest';
import {
	allowed,
	blockedReason,
	EMPTY_ALLOW,
	literalAddress,
	parseAllowList,
	parseIPv4Loose
} from './addressPolicy';

describe('each blocked range, at its edges', () => {
	it('IPv4: first and last address blocked with the reason, the neighbours public', () => {
		const rows: [string, string, string, string[]][] = [
			['0.0.0.0', '0.255.255.255', 'unspecified', ['1.0.0.0']],
			['10.0.0.0', '10.255.255.255', 'private', ['9.255.255.255', '11.0.0.0']],
			['100.64.0.0', '100.127.255.255', 'private', ['100.63.255.255', '100.128.0.0']],
			['127.0.0.0', '127.255.255.255', 'loopback', ['126.255.255.255', '128.0.0.0']],
			['169.254.0.0', '169.254.255.255', 'link-local', ['169.253.255.255', '169.255.0.0']],
			['172.16.0.0', '172.31.255.255', 'private', ['172.15.255.255', '172.32.0.0']],
			['192.0.0.0', '192.0.0.255', 'reserved', ['191.255.255.255', '192.0.1.0']],
			['192.0.2.0', '192.0.2.255', 'reserved', ['192.0.1.255', '192.0.3.0']],
			['192.88.99.0', '192.88.99.255', 'reserved', ['192.88.98.255', '192.88.100.0']],
			['192.168.0.0', '192.168.255.255', 'private', ['192.167.255.255', '192.169.0.0']],
			['198.18.0.0', '198.19.255.255', 'reserved', ['198.17.255.255', '198.20.0.0']],
			['198.51.100.0', '198.51.100.255', 'reserved', ['198.51.99.255', '198.51.101.0']],
			['203.0.113.0', '203.0.113.255', 'reserved', ['203.0.112.255', '203.0.114.0']],
			['224.0.0.0', '239.255.255.255', 'multicast', ['223.255.255.255']],
			['240.0.0.0', '255.255.255.255', 'reserved', []]
		];
		for (const [first, last, reason, outside] of rows) {
			expect([first, blockedReason(first)]).toEqual([first, reason]);
			expect([last, blockedReason(last)]).toEqual([last, reason]);
			for (const a of outside) expect([a, blockedReason(a)]).toEqual([a, undefined]);
		}
	});

	it('IPv6: each range with its reason, and public addresses beside them', () => {
		const rows: [string, string | undefined][] = [
			['::', 'unspecified'],
			['::1', 'loopback'],
			['::2', 'reserved'],
			['::102:304', 'reserved'],
			['64:ff9b::a00:1', 'reserved'],
			['64:ff9b:1::1', 'reserved'],
			['64:ff9b:2::1', undefined],
			['100::1', 'reserved'],
			['100:0:0:1::1', undefined],
			['2001::1', 'reserved'],
			['2001:1ff:ffff::1', 'reserved'],
			['2001:200::1', undefined],
			['2001:db8:ffff::1', 'reserved'],
			['2001:db9::1', undefined],
			['2002:a00:1::1', 'reserved'],
			['2003::1', undefined],
			['fc00::1', 'private'],
			['fdff:ffff::1', 'private'],
			['fe00::1', undefined],
			['fe80::1', 'link-local'],
			['febf::1', 'link-local'],
			['fec0::1', 'link-local'],
			['feff::1', 'link-local'],
			['ff02::1', 'multicast'],
			['ffff::1', 'multicast'],
			['2606:4700::1111', undefined]
		];
		for (const [a, reason] of rows) expect([a, blockedReason(a)]).toEqual([a, reason]);
	});

	it('anything that is not an address is refused as such', () => {
		for (const a of ['example.com', '', '1.2.3.4.5', '[::1'])
			expect([a, blockedReason(a)]).toEqual([a, 'not an address']);
	});
});

describe('IPv4 notations, their limits', () => {
	it('takes a trailing dot and an empty hex part, as the URL parser does', () => {
		expect(parseIPv4Loose('127.0.0.1.')).toBe('127.0.0.1');
		expect(parseIPv4Loose('0x')).toBe('0.0.0.0');
		expect(parseIPv4Loose('0x.0x.0x.1')).toBe('0.0.0.1');
		expect(new URL('http://0x/').hostname).toBe('0.0.0.0');
	});

	it('refuses five parts, and a last part one past the bytes it fills', () => {
		for (const a of ['1.2.3.4.0', '4294967296', '1.16777216', '1.2.65536', '1.2.3.256'])
			expect([a, parseIPv4Loose(a)]).toEqual([a, undefined]);
		expect(parseIPv4Loose('4294967295')).toBe('255.255.255.255');
		expect(parseIPv4Loose('1.16777215')).toBe('1.255.255.255');
		expect(parseIPv4Loose('1.2.65535')).toBe('1.2.255.255');
	});

	it('reads hex and octal only when the whole part is', () => {
		for (const a of ['a0x1', '000x1', 'a00x1', '0x1g', '018', '1.0x1g', 'x7f.1', '1e3', ' 1'])
			expect([a, parseIPv4Loose(a)]).toEqual([a, undefined]);
		expect(parseIPv4Loose('0X7F.1')).toBe('127.0.0.1');
		expect(parseIPv4Loose('017.1')).toBe('15.0.0.1');
	});
});

describe('address literals', () => {
	it('trims and lower-cases, and takes brackets only in pairs', () => {
		expect(literalAddress(' 127.0.0.1 ')).toEqual({ address: '127.0.0.1', family: 4 });
		expect(literalAddress('2606:4700::ABCD')).toEqual({ address: '2606:4700::abcd', family: 6 });
		expect(literalAddress('[2606:4700::1]')).toEqual({ address: '2606:4700::1', family: 6 });
		for (const a of ['[127.0.0.1', '127.0.0.1]', 'x127.0.0.1]', '[127.0.0.1x'])
			expect([a, literalAddress(a)]).toEqual([a, undefined]);
	});

	it('reads IPv4-mapped IPv6 only when the address is exactly ::ffff:a.b.c.d', () => {
		expect(literalAddress('::ffff:7f00:1')).toEqual({ address: '127.0.0.1', family: 4 });
		expect(literalAddress('1::ffff:7f00:1')).toEqual({ address: '1::ffff:7f00:1', family: 6 });
		expect(literalAddress('::ffff:7f00:1:2')).toEqual({ address: '::ffff:7f00:1:2', family: 6 });
		expect(blockedReason('1::ffff:7f00:1')).toBeUndefined();
		expect(blockedReason('::ffff:7f00:1:2')).toBeUndefined();
	});
});

describe('the allowlist', () => {
	it('takes names of one or more labels, single characters and inner hyphens included', () => {
		const allow = parseAllowList('a,h.b,my-host.lan.example,x1.abcd');
		expect([...allow.hosts]).toEqual(['a', 'h.b', 'my-host.lan.example', 'x1.abcd']);
		for (const host of ['a', 'H.B', 'my-host.lan.example']) {
			expect([host, allowed(allow, host, '10.0.0.1')]).toEqual([host, true]);
		}
		expect(allowed(allow, 'b', '10.0.0.1')).toBe(false);
	});

	it('refuses names that start or end with a hyphen or have an empty label, naming the entry', () => {
		for (const entry of ['-x', 'x-', 'a..b', 'a.-b', 'a_b'])
			expect(() => parseAllowList(`ok.lan, ${entry} `)).toThrow(
				`GEXDECK_WEBHOOK_ALLOW: "${entry}" is not a host name, an address or a CIDR range`
			);
	});

	it('refuses a prefix that is not a whole number of bits within the family', () => {
		for (const entry of ['10.0.0.0/33', '10.0.0.0/x8', '10.0.0.0/8x', '::1/129', '10.0.0.0/'])
			expect(() => parseAllowList(` ${entry} `)).toThrow(
				`GEXDECK_WEBHOOK_ALLOW: bad prefix length in "${entry}"`
			);
		expect(() => parseAllowList('10.0.0.0/8/1')).toThrow(/is not a host name/);
	});

	it('lets an address through by its range, a bare address as a range of one', () => {
		const allow = parseAllowList('10.1.0.0/16, 192.168.1.7, ::1, fd00::/8');
		expect(allowed(allow, 'x.lan', '10.1.255.255')).toBe(true);
		expect(allowed(allow, 'x.lan', '10.2.0.0')).toBe(false);
		expect(allowed(allow, 'x.lan', '192.168.1.7')).toBe(true);
		expect(allowed(allow, 'x.lan', '192.168.1.8')).toBe(false);
		expect(allowed(allow, '[::1]', '::1')).toBe(true);
		expect(allowed(allow, 'y.lan', 'fd12::1')).toBe(true);
		expect(allowed(allow, 'y.lan', 'fe80::1')).toBe(false);
		expect(allowed(allow, 'y.lan', 'not an address')).toBe(false);
	});

	it('keeps the setting as written (trimmed) for messages; none is empty', () => {
		expect(parseAllowList('  a.lan ,10.0.0.0/8 ').text).toBe('a.lan ,10.0.0.0/8');
		expect(parseAllowList(undefined).text).toBe('');
		expect(EMPTY_ALLOW.text).toBe('');
		expect(EMPTY_ALLOW.hosts.size).toBe(0);
		expect(allowed(EMPTY_ALLOW, 'localhost', '127.0.0.1')).toBe(false);
	});
});
