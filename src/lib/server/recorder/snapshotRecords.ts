/**
 * A day of polled-style snapshots (a JSON array, as the service's history files and EOD report
 * members hold them) turned into recorder records as it arrives: one gzip JSON record per
 * calculation, in the file's order, a repeated or older timestamp kept once. Each element is
 * stored as the text the service wrote (cut out of the array, parsed once to check it and read
 * its timestamp, never re-serialised). The array is read in pieces (JsonArraySplitter), so a
 * day of any size costs the memory of one piece and one element, never the whole file: a full
 * day of 15 categories is 350,000 records and several hundred MB of JSON.
 */
import { StringDecoder } from 'node:string_decoder';
import { gzipSync } from 'node:zlib';
import { RecordKind } from './recordFile';

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/**
 * The elements of one JSON array as their own source text, in order, from its text given in
 * pieces cut anywhere. Only the array's structure is read here (strings, nesting, commas); each
 * element is checked by whoever parses it. A text that is not one array is a SyntaxError, from
 * the piece where that shows or from end().
 */
export class JsonArraySplitter {
	private phase: 'before' | 'inside' | 'after' = 'before';
	private depth = 0;
	private inString = false;
	private escaped = false;
	/** The current element's text from earlier pieces; undefined between elements. */
	private partial: string | undefined;
	private elements = 0;

	push(piece: string): string[] {
		const out: string[] = [];
		const n = piece.length;
		let start = this.partial !== undefined ? 0 : -1;
		for (let i = 0; i < n; i++) {
			const c = piece.charCodeAt(i);
			if (this.phase !== 'inside') {
				if (isSpace(c)) continue;
				if (this.phase === 'after') throw new SyntaxError('text after the JSON array');
				if (c !== 91) throw new SyntaxError('not a JSON array');
				this.phase = 'inside';
				continue;
			}
			if (this.inString) {
				if (this.escaped) this.escaped = false;
				else if (c === 92) this.escaped = true;
				else if (c === 34) this.inString = false;
				continue;
			}
			if (c === 34) {
				if (start < 0) start = i;
				this.inString = true;
			} else if (this.depth === 0 && (c === 44 || c === 93)) {
				if (start >= 0) {
					out.push(((this.partial ?? '') + piece.slice(start, i)).trimEnd());
					this.elements++;
				} else if (c === 44 || this.elements > 0) {
					throw new SyntaxError('empty element in the JSON array');
				}
				start = -1;
				this.partial = undefined;
				if (c === 93) this.phase = 'after';
			} else if (c === 123 || c === 91) {
				if (start < 0) start = i;
				this.depth++;
			} else if (c === 125 || c === 93) {
				if (--this.depth < 0) throw new SyntaxError('unbalanced brackets in the JSON array');
			} else if (start < 0 && !isSpace(c)) {
				start = i;
			}
		}
		if (start >= 0) this.partial = (this.partial ?? '') + piece.slice(start);
		return out;
	}

	/** The array must be complete by now. */
	end(): void {
		if (this.phase !== 'after') throw new SyntaxError('unterminated JSON array');
	}
}

/** The elements of a whole array's text (JsonArraySplitter over one piece). */
export function jsonArrayElements(text: string): string[] {
	const splitter = new JsonArraySplitter();
	const out = splitter.push(text);
	splitter.end();
	return out;
}

/** Where a snapshot day's records go (a DayImport, or an array in tests). */
export interface SnapshotSink {
	append(kind: RecordKind, timestamp: number, payload: Uint8Array): void;
}

/** Thrown when a day's JSON grows past its cap: nothing of it is kept. */
export class SnapshotTooLargeError extends Error {}

/**
 * Files a snapshot array given as bytes in pieces (UTF-8 cut anywhere) into `sink`, one record
 * per calculation; refuses more than `maxBytes` of JSON. Synchronous per piece, so the caller's
 * stream (a download, a zip member) sets the pace and the memory.
 */
export class SnapshotFiler {
	private readonly splitter = new JsonArraySplitter();
	private readonly decoder = new StringDecoder('utf8');
	private previous = -Infinity;
	/** Bytes of JSON read so far. */
	bytes = 0;
	/** Records filed so far. */
	records = 0;

	constructor(
		private readonly sink: SnapshotSink,
		private readonly maxBytes = Infinity
	) {}

	push(piece: Uint8Array): void {
		this.bytes += piece.length;
		if (this.bytes > this.maxBytes) {
			throw new SnapshotTooLargeError(
				`the day is larger than the ${formatBytes(this.maxBytes)} import limit`
			);
		}
		const text = this.decoder.write(Buffer.from(piece.buffer, piece.byteOffset, piece.length));
		for (const element of this.splitter.push(text)) this.file(element);
	}

	/** The array must be complete; returns the records filed. */
	end(): number {
		const rest = this.decoder.end();
		for (const element of this.splitter.push(rest)) this.file(element);
		this.splitter.end();
		return this.records;
	}

	private file(element: string): void {
		const ts = (JSON.parse(element) as { timestamp?: unknown } | null)?.timestamp;
		// The day in the service's order; a repeated or older calculation is kept once.
		if (typeof ts !== 'number' || !(ts > this.previous)) return;
		this.previous = ts;
		this.sink.append(RecordKind.SnapshotGzipJson, ts, gzipSync(element, { level: 1 }));
		this.records++;
	}
}

export function formatBytes(n: number): string {
	if (n >= 1024 ** 3) return `${+(n / 1024 ** 3).toFixed(1)} GB`;
	if (n >= 1024 ** 2) return `${+(n / 1024 ** 2).toFixed(1)} MB`;
	return `${n} bytes`;
}

/**
 * An await that gives the event loop a turn (setImmediate: timers, sockets, /healthz) once
 * `everyMs` of work went by since the last one. An import's pieces arrive buffered faster than
 * they are filed; without turns a for-await over them only ever yields to microtasks.
 */
export function loopTurns(everyMs = 8): () => Promise<void> {
	let last = performance.now();
	return async () => {
		if (performance.now() - last < everyMs) return;
		await new Promise((r) => setImmediate(r));
		last = performance.now();
	};
}
