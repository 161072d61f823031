import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cursorAfterKey, nearestValue } from '../cursor/cursor';
import { exportName, toCsv, toJson, type ExportMeta } from './exportTable';
import { parseResearchPayload, PayloadError, type ResearchPayload } from './payload';
import { chosenSkew, shownTable, strikeBars, termPoints, type Cell } from './shownRows';

/** A strict RFC 4180 reader: the test's independent view of what a spreadsheet sees. */
function parseCsv(text: string): string[][] {
	const rows: string[][] = [];
	let row: string[] = [];
	let cell = '';
	let i = 0;
	let quoted = false;
	while (i < text.length) {
		const ch = text[i];
		if (quoted) {
			if (ch === '"' && text[i + 1] === '"') {
				cell += '"';
				i += 2;
			} else if (ch === '"') {
				quoted = false;
				i++;
			} else {
				cell += ch;
				i++;
			}
		} else if (ch === '"' && cell === '') {
			quoted = true;
			i++;
		} else if (ch === ',') {
			row.push(cell);
			cell = '';
			i++;
		} else if (ch === '\r' && text[i + 1] === '\n') {
			row.push(cell);
			rows.push(row);
			row = [];
			cell = '';
			i += 2;
		} else {
			if (ch === '"' || ch === '\n' || ch === '\r') throw new Error(`bare ${JSON.stringify(ch)}`);
			cell += ch;
			i++;
		}
	}
	if (quoted) throw new Error('unterminated quote');
	if (cell !== '' || row.length) throw new Error('missing final CRLF');
	return rows;
}

const META: ExportMeta = {
	ticker: 'SPX',
	metric: 'gex_oi',
	timestamp: 1_795_444_200,
	spot: 7418.17,
	display: 'strikes',
	filters: { strikes: 20 },
	view: '/SPX/research/gex_oi?strikes=20'
};

const cellArb: fc.Arbitrary<Cell> = fc.oneof(
	fc.string({ unit: fc.constantFrom('a', 'Z', ',', '"', '\r', '\n', ' ', 'é', '1', '-') }),
	fc.string(),
	fc.double({ noNaN: true, noDefaultInfinity: true }),
	fc.integer(),
	fc.constant(null)
);

describe('research downloads', () => {
	it('CSV parses back to exactly the JSON rows, whatever the strings hold', () => {
		fc.assert(
			fc.property(
				fc.integer({ min: 1, max: 5 }).chain((n) =>
					fc.record({
						columns: fc.array(fc.string({ minLength: 1 }), { minLength: n, maxLength: n }),
						rows: fc.array(fc.array(cellArb, { minLength: n, maxLength: n }), { maxLength: 20 })
					})
				),
				(table) => {
					const csv = toCsv(table);
					const json = JSON.parse(toJson({ ...table, note: '' }, META)) as {
						columns: string[];
						rows: Cell[][];
					};
					const parsed = parseCsv(csv);
					expect(parsed[0]).toEqual(json.columns);
					expect(parsed.length - 1).toBe(json.rows.length);
					json.rows.forEach((row, r) =>
						row.forEach((cell, c) => {
							const text = parsed[r + 1][c];
							if (cell === null) expect(text).toBe('');
							else if (typeof cell === 'number') expect(Number(text)).toBe(cell);
							else expect(text).toBe(cell);
						})
					);
				}
			),
			{ numRuns: 300 }
		);
	});

	it('quotes only what needs quoting and names files from the view', () => {
		expect(
			toCsv({
				columns: ['a', 'b'],
				rows: [
					['x,y', 'say "hi"'],
					[1.5, null]
				]
			})
		).toBe('a,b\r\n"x,y","say ""hi"""\r\n1.5,\r\n');
		expect(exportName(META)).toBe('SPX_gex_oi_strikes_20261123T1430');
	});
});

function payload(extra: Partial<ResearchPayload>): ResearchPayload {
	return { ticker: 'SPX', metric: 'gex_oi', timestamp: 1, spot: 100, view: 'table', ...extra };
}

describe('shown rows', () => {
	const rows = [
		{ expiry: '2026-11-23', dte: 0, strike: 95, type: 'put' as const, value: -10 },
		{ expiry: '2026-11-23', dte: 0, strike: 100, type: 'call' as const, value: 5 },
		{ expiry: '2026-11-30', dte: 7, strike: 100, type: 'call' as const, value: 7 },
		{ expiry: '2026-11-30', dte: 7, strike: 95, type: 'put' as const, value: -2 }
	];

	it('strike bars sum exposures over expiries and average per-contract greeks', () => {
		expect(strikeBars(payload({ rows })).bars).toEqual([
			{ strike: 95, type: 'put', value: -12 },
			{ strike: 100, type: 'call', value: 12 }
		]);
		expect(strikeBars(payload({ rows, metric: 'gamma_mid' })).bars).toEqual([
			{ strike: 95, type: 'put', value: -6 },
			{ strike: 100, type: 'call', value: 6 }
		]);
		const t = shownTable(payload({ rows }), 'strikes', null);
		expect(t.rows).toEqual([
			[95, 'put', -12],
			[100, 'call', 12]
		]);
		expect(t.note).toMatch(/summed over 2 expiries/);
	});

	it('skew shows the chosen expiries, or the nearest four', () => {
		const series = Array.from({ length: 6 }, (_, i) => ({
			expiry: `2026-12-0${i + 1}`,
			dte: i + 8,
			type: 'call' as const,
			points: [
				[110, 0.2],
				[100, 0.18]
			] as [number, number][]
		}));
		const p = payload({ view: 'skew', metric: 'iv_mid', series: [...series].reverse() });
		expect(chosenSkew(p, null).map((s) => s.expiry)).toEqual([
			'2026-12-04',
			'2026-12-03',
			'2026-12-02',
			'2026-12-01'
		]);
		const two = shownTable(p, 'skew', ['2026-12-06', '2026-12-02']);
		expect(two.rows).toEqual([
			['2026-12-06', 13, 'call', 100, 0.18],
			['2026-12-06', 13, 'call', 110, 0.2],
			['2026-12-02', 9, 'call', 100, 0.18],
			['2026-12-02', 9, 'call', 110, 0.2]
		]);
	});

	it('term rows by DTE; levels per expiry without the missing ones; surface cells with values', () => {
		const term = payload({
			view: 'term',
			term: [
				{ expiry: '2026-11-30', dte: 7, type: 'call', value: 0.2 },
				{ expiry: '2026-11-23', dte: 0, type: 'call', value: 0.3 }
			]
		});
		expect(termPoints(term).map((t) => t.dte)).toEqual([0, 7]);
		const level = payload({
			view: 'term',
			metric: 'max_pain',
			level: {
				value: 100,
				expiries: [
					{ expiry: '2026-11-23', dte: 0, value: 95 },
					{ expiry: '2026-11-24', dte: 1, value: null }
				]
			}
		});
		expect(shownTable(level, 'term', null).rows).toEqual([['2026-11-23', 0, 'level', 95]]);
		const surface = payload({
			view: 'surface',
			surface: {
				strikes: [95, 100],
				expiries: ['2026-11-23'],
				dte: [0],
				values: [[null, 0.2]]
			}
		});
		expect(shownTable(surface, 'surface', null).rows).toEqual([['2026-11-23', 0, 100, 0.2]]);
	});

	it('a payload of another shape is refused with a reason', () => {
		expect(() => parseResearchPayload({ error: 'x' })).toThrow(PayloadError);
		expect(() => parseResearchPayload(payload({ view: 'skew' }))).toThrow(/skew without series/);
		expect(parseResearchPayload(payload({ rows }))).toBeTruthy();
	});
});

describe('chart cursor', () => {
	const xs = [6900, 6925, 6950, 7000];
	it('snaps to the nearest value and steps with the arrows, clamped', () => {
		expect(nearestValue(xs, 6940)).toBe(6950);
		expect(nearestValue(xs, 1)).toBe(6900);
		expect(nearestValue([], 1)).toBeNull();
		expect(cursorAfterKey(xs, null, 'ArrowRight', 6930)).toBe(6925);
		expect(cursorAfterKey(xs, 6925, 'ArrowRight')).toBe(6950);
		expect(cursorAfterKey(xs, 7000, 'ArrowRight')).toBe(7000);
		expect(cursorAfterKey(xs, 6900, 'ArrowLeft')).toBe(6900);
		expect(cursorAfterKey(xs, 6950, 'Escape')).toBeNull();
		expect(cursorAfterKey(xs, 6950, 'a')).toBeUndefined();
	});
});
