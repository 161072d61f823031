/**
 * Cutting a snapshot array into records without re-serialising it: the elements are exactly the
 * array's own texts (any JSON, any spacing, strings holding brackets, quotes and escapes), a
 * malformed array is a SyntaxError, and the records keep the file's order with repeats dropped.
 */
import fc from 'fast-check';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { jsonArrayElements, snapshotRecords } from './snapshotRecords';

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

describe('snapshotRecords', () => {
	it('stores each calculation once, in order, as the text the service wrote', async () => {
		const text =
			'[{"timestamp":2,"x":"a"}, {"timestamp":1}, {"timestamp":2}, {"x":1}, {"timestamp":3}]';
		const records = await snapshotRecords(text);
		expect(records.map((r) => r.timestamp)).toEqual([2, 3]);
		expect(gunzipSync(records[0].payload).toString()).toBe('{"timestamp":2,"x":"a"}');
	});

	it('a malformed element is a SyntaxError, not a stored record', async () => {
		await expect(snapshotRecords('[{"timestamp":1},{"timestamp":2,}]')).rejects.toThrow(
			SyntaxError
		);
	});
});
