/**
 * A day of polled-style snapshots (a JSON array, as the service's history files and EOD report
 * members hold them) turned into recorder records: one gzip JSON record per calculation, in the
 * file's order, a repeated or older timestamp kept once. Each element is stored as the text the
 * service wrote (cut out of the array, parsed once to check it and read its timestamp, never
 * re-serialised), and the event loop gets a turn every couple of thousand records: a full day of
 * 15 categories is 350,000 records, and the dashboard keeps relaying meanwhile.
 */
import { gzipSync } from 'node:zlib';
import { RecordKind } from './recordFile';

export interface SnapshotRecord {
	kind: RecordKind.SnapshotGzipJson;
	timestamp: number;
	payload: Buffer;
}

const YIELD_EVERY = 2_000;

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/**
 * The elements of a JSON array as their own source text, in order. Only the array's structure
 * is read here (strings, nesting, commas); each element is checked by whoever parses it. A text
 * that is not one array is a SyntaxError.
 */
export function jsonArrayElements(text: string): string[] {
	const n = text.length;
	let i = 0;
	while (i < n && isSpace(text.charCodeAt(i))) i++;
	if (text.charCodeAt(i) !== 91) throw new SyntaxError('not a JSON array');
	const out: string[] = [];
	let depth = 0;
	let start = -1;
	for (i++; i < n; i++) {
		const c = text.charCodeAt(i);
		if (c === 34) {
			if (start < 0) start = i;
			for (i++; i < n; i++) {
				const d = text.charCodeAt(i);
				if (d === 92) i++;
				else if (d === 34) break;
			}
			if (i >= n) throw new SyntaxError('unterminated string in the JSON array');
		} else if (depth === 0 && (c === 44 || c === 93)) {
			if (start >= 0) out.push(text.slice(start, i).trimEnd());
			else if (c === 44 || out.length > 0) throw new SyntaxError('empty element in the JSON array');
			start = -1;
			if (c === 93) {
				for (i++; i < n; i++) {
					if (!isSpace(text.charCodeAt(i))) throw new SyntaxError('text after the JSON array');
				}
				return out;
			}
		} else if (c === 123 || c === 91) {
			if (start < 0) start = i;
			depth++;
		} else if (c === 125 || c === 93) {
			if (--depth < 0) throw new SyntaxError('unbalanced brackets in the JSON array');
		} else if (start < 0 && !isSpace(c)) {
			start = i;
		}
	}
	throw new SyntaxError('unterminated JSON array');
}

/** The records of a snapshot array's text; a malformed text or element is a SyntaxError. */
export async function snapshotRecords(text: string): Promise<SnapshotRecord[]> {
	const records: SnapshotRecord[] = [];
	let previous = -Infinity;
	let seen = 0;
	for (const element of jsonArrayElements(text)) {
		const ts = (JSON.parse(element) as { timestamp?: unknown } | null)?.timestamp;
		if (++seen % YIELD_EVERY === 0) await new Promise((r) => setImmediate(r));
		// The day in the service's order; a repeated or older calculation is kept once.
		if (typeof ts !== 'number' || !(ts > previous)) continue;
		previous = ts;
		records.push({
			kind: RecordKind.SnapshotGzipJson,
			timestamp: ts,
			payload: gzipSync(element, { level: 1 })
		});
	}
	return records;
}
