/**
 * A zip archive of stored (uncompressed) members written as a stream: the members are gzip files
 * already, whose sizes and CRC-32s are known before the first byte goes out, so every local
 * header is complete (no data descriptors, which some readers refuse for stored entries), the
 * archive's length is known up front (Content-Length), and the members are copied from disk
 * chunk by chunk instead of being assembled in memory. Classic zip only: each member and the
 * whole archive must stay under 4 GiB.
 */
import { createReadStream } from 'node:fs';

export interface StoredMember {
	/** Path inside the archive (ASCII). */
	name: string;
	/** The member's bytes: a file to copy, or a buffer. */
	source: { file: string } | { bytes: Buffer };
	size: number;
	crc: number;
}

const LOCAL = 30;
const CENTRAL = 46;
const END = 22;
const LIMIT = 0xffffffff;

/** DOS date and time fields of an instant, in UTC so an archive is the same bytes anywhere. */
function dosDateTime(at: Date): { time: number; date: number } {
	return {
		time: (at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | (at.getUTCSeconds() >> 1),
		date: ((at.getUTCFullYear() - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate()
	};
}

/** Bytes of the whole archive. */
export function storedZipSize(members: readonly StoredMember[]): number {
	let total = END;
	for (const m of members) total += LOCAL + CENTRAL + 2 * Buffer.byteLength(m.name) + m.size;
	return total;
}

function header(
	m: StoredMember,
	when: { time: number; date: number },
	central: boolean,
	offset = 0
) {
	const name = Buffer.from(m.name, 'ascii');
	const b = Buffer.alloc((central ? CENTRAL : LOCAL) + name.length);
	let p = 0;
	const u32 = (v: number) => (p = b.writeUInt32LE(v >>> 0, p));
	const u16 = (v: number) => (p = b.writeUInt16LE(v, p));
	u32(central ? 0x02014b50 : 0x04034b50);
	if (central) u16(20); // made by: zip 2.0, MS-DOS attributes
	u16(20); // version needed to extract
	u16(0); // flags
	u16(0); // method: stored
	u16(when.time);
	u16(when.date);
	u32(m.crc);
	u32(m.size);
	u32(m.size);
	u16(name.length);
	u16(0); // extra field length
	if (central) {
		u16(0); // comment length
		u16(0); // disk number
		u16(0); // internal attributes
		u32(0); // external attributes
		u32(offset);
	}
	name.copy(b, p);
	return b;
}

/**
 * The archive's bytes in order; a member file shorter or longer than its declared size throws
 * (the archive would be corrupt), which ends the stream with an error.
 */
export async function* storedZip(
	members: readonly StoredMember[],
	mtime: Date
): AsyncGenerator<Buffer> {
	if (storedZipSize(members) > LIMIT) throw new RangeError('zip archive over 4 GiB');
	const when = dosDateTime(mtime);
	const offsets: number[] = [];
	let offset = 0;
	for (const m of members) {
		offsets.push(offset);
		const local = header(m, when, false);
		yield local;
		let copied = 0;
		if ('bytes' in m.source) {
			copied = m.source.bytes.length;
			yield m.source.bytes;
		} else {
			for await (const chunk of createReadStream(m.source.file, { highWaterMark: 256 << 10 })) {
				copied += (chunk as Buffer).length;
				if (copied > m.size) break;
				yield chunk as Buffer;
			}
		}
		if (copied !== m.size)
			throw new Error(`zip member ${m.name}: ${copied} bytes instead of ${m.size}`);
		offset += local.length + m.size;
	}
	const centralStart = offset;
	const directory = members.map((m, i) => header(m, when, true, offsets[i]));
	const end = Buffer.alloc(END);
	const centralSize = directory.reduce((n, b) => n + b.length, 0);
	end.writeUInt32LE(0x06054b50, 0);
	end.writeUInt16LE(members.length, 8);
	end.writeUInt16LE(members.length, 10);
	end.writeUInt32LE(centralSize, 12);
	end.writeUInt32LE(centralStart, 16);
	yield Buffer.concat([...directory, end]);
}
