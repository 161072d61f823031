/**
 * Cutting a snapshot array into records without re-serialising it: the elements are exactly the
 * array's own texts (any JSON, any spacing, strings holding brackets, quotes and escapes), a
 * malformed array is a SyntaxError, and the records keep the file's order with repeats dropped.
 */
import fc from 'fast-check';
import { StringDecoder } from 'node:string_decoder';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
	JsonArraySplitter,
	jsonArrayElements,
	SnapshotFiler,
	SnapshotTooLargeError
} from './snapshotRecords';

describe('jsonArrayElements', () => {
	it('returns each element of any JSON array as its own text', () => {
		fc.assert(
			fc.property(fc.array(fc.jsonValue()), fc.constantFrom(undefined, 1, '\t'), (arr, space) => {
				const text = JSON.stringify(arr, null, space);
				const elements = jsonArrayElements(text);
				expect(elements.map((e) => JSON.parse(e) as unknown)).toEqual(JSON.parse(text));
				if (space === undefined) expect(elements).toEqual(arr.map((e) => JSON.stringify(e)));
			})
		);
	});

	it('refuses what is not one array', () => {
		for (const bad of ['{}', '[1,]', '[,1]', '[1', '["a]', '[1]x', '[1]]', '', '[{]']) {
			expect(() => jsonArrayElements(bad), bad).toThrow(SyntaxError);
		}
		expect(jsonArrayElements(' [ ] ')).toEqual([]);
		expect(jsonArrayElements('[ {"a":"],\\"["} , 2 ]')).toEqual(['{"a":"],\\"["}', '2']);
	});
});

/** The bytes of `text` cut at the given fractions (anywhere: inside a UTF-8 sequence too). */
function cutBytes(text: string, cuts: number[]): Buffer[] {
	const bytes = Buffer.from(text);
	const at = [...new Set(cuts.map((f) => Math.floor(f * bytes.length)))].sort((a, b) => a - b);
	const pieces: Buffer[] = [];
	let from = 0;
	for (const to of [...at, bytes.length]) {
		pieces.push(bytes.subarray(from, to));
		from = to;
	}
	return pieces;
}

interface Filed {
	timestamp: number;
	text: string;
}

function fileAll(pieces: Buffer[], maxBytes?: number): Filed[] {
	const filed: Filed[] = [];
	const filer = new SnapshotFiler(
		{
			append: (_k, timestamp, payload) =>
				filed.push({ timestamp, text: gunzipSync(payload).toString() })
		},
		maxBytes
	);
	for (const piece of pieces) filer.push(piece);
	filer.end();
	return filed;
}

describe('JsonArraySplitter', () => {
	it('gives the same elements however the text is cut into pieces', () => {
		fc.assert(
			fc.property(
				fc.array(fc.jsonValue({ stringUnit: 'binary' })),
				fc.constantFrom(undefined, 1, '\t'),
				fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }),
				(arr, space, cuts) => {
					const text = JSON.stringify(arr, null, space);
					const splitter = new JsonArraySplitter();
					const decoder = new StringDecoder('utf8');
					const got = cutBytes(text, cuts).flatMap((p) => splitter.push(decoder.write(p)));
					got.push(...splitter.push(decoder.end()));
					splitter.end();
					expect(got).toEqual(jsonArrayElements(text));
				}
			)
		);
	});
});

describe('SnapshotFiler', () => {
	const text =
		'[{"timestamp":2,"x":"a"}, {"timestamp":1}, {"timestamp":2}, {"x":1}, {"timestamp":3,"y":"é€"}]';

	it('stores each calculation once, in order, as the text the service wrote', () => {
		const filed = fileAll([Buffer.from(text)]);
		expect(filed.map((r) => r.timestamp)).toEqual([2, 3]);
		expect(filed[0].text).toBe('{"timestamp":2,"x":"a"}');
		expect(filed[1].text).toBe('{"timestamp":3,"y":"é€"}');
	});

	it('files the same records from a text cut into pieces anywhere as from the whole text', () => {
		const whole = fileAll([Buffer.from(text)]);
		fc.assert(
			fc.property(
				fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 20 }),
				(cuts) => {
					expect(fileAll(cutBytes(text, cuts))).toEqual(whole);
				}
			)
		);
	});

	it('a malformed element or array is a SyntaxError, not a stored record', () => {
		expect(() => fileAll([Buffer.from('[{"timestamp":1},{"timestamp":2,}]')])).toThrow(SyntaxError);
		expect(() => fileAll([Buffer.from('[{"timestamp":1}')])).toThrow(SyntaxError);
	});

	it('refuses more JSON than its cap, counted in bytes as they arrive', () => {
		const bytes = Buffer.from(text).length;
		expect(fileAll([Buffer.from(text)], bytes)).toHaveLength(2);
		expect(() => fileAll(cutBytes(text, [0.5]), bytes - 1)).toThrow(SnapshotTooLargeError);
	});
});
