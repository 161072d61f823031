/**
 * Which addresses a webhook may reach: public unicast only, unless the operator's allowlist
 * (GEXDECK_WEBHOOK_ALLOW) names the host or a range that holds the address. Pure: no DNS here
 * (webhookTarget.ts resolves, then asks this module about every address it got).
 *
 * IPv4 is read in every notation the URL parser and getaddrinfo accept (`127.1`, `2130706433`,
 * `0x7f000001`, `0177.0.0.1`), IPv6 with its IPv4-mapped form (`::ffff:127.0.0.1`) judged by the
 * IPv4 address inside.
 */
import { BlockList, isIP } from 'node:net';

export type BlockReason =
	| 'loopback'
	| 'private'
	| 'link-local'
	| 'multicast'
	| 'unspecified'
	| 'reserved'
	| 'not an address';

/** IPv4 ranges no webhook may reach (RFC 6890 special-purpose, plus multicast and class E). */
const V4: [string, number, BlockReason][] = [
	['0.0.0.0', 8, 'unspecified'],
	['10.0.0.0', 8, 'private'],
	['100.64.0.0', 10, 'private'],
	['127.0.0.0', 8, 'loopback'],
	['169.254.0.0', 16, 'link-local'],
	['172.16.0.0', 12, 'private'],
	['192.0.0.0', 24, 'reserved'],
	['192.0.2.0', 24, 'reserved'],
	['192.88.99.0', 24, 'reserved'],
	['192.168.0.0', 16, 'private'],
	['198.18.0.0', 15, 'reserved'],
	['198.51.100.0', 24, 'reserved'],
	['203.0.113.0', 24, 'reserved'],
	['224.0.0.0', 4, 'multicast'],
	['240.0.0.0', 4, 'reserved']
];

/** IPv6 ranges (the IPv4-mapped ::ffff:0:0/96 is judged by its IPv4 address instead). */
const V6: [string, number, BlockReason][] = [
	['::', 128, 'unspecified'],
	['::1', 128, 'loopback'],
	['::', 96, 'reserved'], // IPv4-compatible (deprecated)
	['64:ff9b::', 96, 'reserved'], // NAT64: could reach any IPv4, private ones included
	['64:ff9b:1::', 48, 'reserved'],
	['100::', 64, 'reserved'],
	['2001::', 23, 'reserved'], // IETF protocol assignments, Teredo included
	['2001:db8::', 32, 'reserved'],
	['2002::', 16, 'reserved'], // 6to4 wraps an IPv4 address
	['fc00::', 7, 'private'],
	['fe80::', 10, 'link-local'],
	['fec0::', 10, 'link-local'],
	['ff00::', 8, 'multicast']
];

function listOf(rows: [string, number, BlockReason][], family: 'ipv4' | 'ipv6') {
	return rows.map(([net, prefix, reason]) => {
		const list = new BlockList();
		list.addSubnet(net, prefix, family);
		return { list, reason };
	});
}
const V4_LISTS = listOf(V4, 'ipv4');
const V6_LISTS = listOf(V6, 'ipv6');

/**
 * An IPv4 address in any inet_aton notation (1-4 parts, each decimal, 0x-hex or 0-octal, the
 * last part filling the remaining bytes) as dotted decimal, or undefined.
 */
export function parseIPv4Loose(text: string): string | undefined {
	const parts = text.replace(/\.$/, '').split('.');
	if (parts.length < 1 || parts.length > 4) return undefined;
	const values: number[] = [];
	for (const part of parts) {
		let v: number;
		if (/^0x[0-9a-f]*$/i.test(part)) v = part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
		else if (/^0[0-7]+$/.test(part)) v = Number.parseInt(part.slice(1), 8);
		else if (/^(0|[1-9][0-9]*)$/.test(part)) v = Number(part);
		else return undefined;
		if (!Number.isFinite(v)) return undefined;
		values.push(v);
	}
	const last = values.pop()!;
	if (values.some((v) => v > 255) || last >= 256 ** (4 - values.length)) return undefined;
	let n = last;
	values.forEach((v, i) => (n += v * 256 ** (3 - i)));
	return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** The last 32 bits of an IPv6 address as dotted IPv4 when it is IPv4-mapped (::ffff:a.b.c.d). */
function mappedIPv4(v6: string): string | undefined {
	// The URL parser writes every IPv6 address in one canonical, compressed form.
	const canonical = new URL(`http://[${v6}]/`).hostname.slice(1, -1);
	const m = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
	if (!m) return undefined;
	const hi = Number.parseInt(m[1], 16);
	const lo = Number.parseInt(m[2], 16);
	return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** An address literal as the address it denotes: { address, family } or undefined. */
export function literalAddress(text: string): { address: string; family: 4 | 6 } | undefined {
	let t = text.trim().toLowerCase();
	if (t.startsWith('[') && t.endsWith(']')) t = t.slice(1, -1);
	if (isIP(t) === 6) {
		const v4 = mappedIPv4(t);
		return v4 ? { address: v4, family: 4 } : { address: t, family: 6 };
	}
	const v4 = parseIPv4Loose(t);
	return v4 ? { address: v4, family: 4 } : undefined;
}

/** Why `address` (a literal in any notation) must not be reached, or undefined when public. */
export function blockedReason(address: string): BlockReason | undefined {
	const lit = literalAddress(address);
	if (!lit) return 'not an address';
	const lists = lit.family === 4 ? V4_LISTS : V6_LISTS;
	const type = lit.family === 4 ? 'ipv4' : 'ipv6';
	for (const { list, reason } of lists) if (list.check(lit.address, type)) return reason;
	return undefined;
}

/** The operator's exceptions: host names (exact) and address ranges a webhook may reach. */
export interface AllowList {
	hosts: ReadonlySet<string>;
	ranges: BlockList;
	/** The setting as written, for messages. */
	text: string;
}

export const EMPTY_ALLOW: AllowList = { hosts: new Set(), ranges: new BlockList(), text: '' };

/**
 * GEXDECK_WEBHOOK_ALLOW: comma-separated host names, addresses and CIDR ranges
 * (`192.168.1.0/24,host.lan,127.0.0.1`). Throws with the bad entry named.
 */
export function parseAllowList(text: string | undefined): AllowList {
	const hosts = new Set<string>();
	const ranges = new BlockList();
	for (const raw of (text ?? '').split(',')) {
		const entry = raw.trim().toLowerCase();
		if (!entry) continue;
		const [net, prefix, extra] = entry.split('/');
		const lit = literalAddress(net);
		if (lit && extra === undefined) {
			const max = lit.family === 4 ? 32 : 128;
			const bits = prefix === undefined ? max : Number(prefix);
			if (!/^\d+$/.test(prefix ?? String(max)) || bits > max) {
				throw new Error(`GEXDECK_WEBHOOK_ALLOW: bad prefix length in "${raw.trim()}"`);
			}
			ranges.addSubnet(lit.address, bits, lit.family === 4 ? 'ipv4' : 'ipv6');
		} else if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(entry)) {
			hosts.add(entry);
		} else {
			throw new Error(
				`GEXDECK_WEBHOOK_ALLOW: "${raw.trim()}" is not a host name, an address or a CIDR range`
			);
		}
	}
	return { hosts, ranges, text: text?.trim() ?? '' };
}

/**
 * Whether the allowlist lets a webhook on `host` reach `address`. Its names are host names only
 * (an address literal on the list is a range), so a host that is an address is let through by
 * the ranges alone, whatever its brackets.
 */
export function allowed(allow: AllowList, host: string, address: string): boolean {
	if (allow.hosts.has(host.toLowerCase())) return true;
	const lit = literalAddress(address);
	return Boolean(lit && allow.ranges.check(lit.address, lit.family === 4 ? 'ipv4' : 'ipv6'));
}
