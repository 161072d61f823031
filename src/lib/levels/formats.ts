/**
 * The feed's text formats, all written from one LevelsDocument: the generic CSV (Sierra Chart's
 * study reads it), Bookmap Cloud Notes CSV, and the thinkorswim study. Dot decimals always
 * (priceText), whatever the machine's locale.
 */
import type { LevelKind, LevelsDocument } from './document';
import { priceText } from './pasteString';

/** The dashboard's colours (app.css, dark theme) by level kind. */
export const KIND_COLOURS: Readonly<Record<LevelKind | 'change', string>> = {
	spot: '#9aa4b2',
	zero: '#b48cff',
	pos: '#2fbf71',
	neg: '#ef5b5b',
	change: '#4da3ff'
};

function cell(value: string | number | null | undefined): string {
	if (value === null || value === undefined) return '';
	const text = typeof value === 'number' ? priceText(value) : value;
	return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const CSV_COLUMNS = ['id', 'label', 'kind', 'price', 'value', 'value_oi', 'reason'];

/**
 * One row per fact: `meta` rows (ticker, as_of, age_seconds, stale, source, price_of) carry
 * their value in `value`; levels their price (empty with a reason when null); max change rows
 * the strike as price and the change as value; strike rows net GEX by volume and OI.
 */
export function levelsCsv(doc: LevelsDocument): string {
	const rows: (string | number | null)[][] = [CSV_COLUMNS];
	const meta = (id: string, value: string | number) =>
		rows.push([id, '', 'meta', null, value, null, null]);
	meta('ticker', doc.ticker);
	meta('as_of', doc.as_of.unix_ms);
	meta('as_of_et', doc.as_of.et);
	meta('age_seconds', doc.age_seconds);
	meta('stale', doc.stale ? 1 : 0);
	meta('source', doc.source);
	meta('price_of', doc.price_of);
	rows.push(['spot', 'Spot', 'spot', doc.spot, null, null, null]);
	for (const l of doc.levels) rows.push([l.id, l.label, l.kind, l.price, null, null, l.reason]);
	for (const m of doc.max_change) {
		rows.push([
			`max_change_${m.window}`,
			`Max Chg ${m.window}`,
			'change',
			m.strike,
			m.change,
			null,
			m.reason
		]);
	}
	for (const s of doc.strikes ?? []) {
		rows.push(['strike', '', 'strike', s.strike, s.net_gex_vol, s.net_gex_oi, null]);
	}
	return rows.map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}

export const BOOKMAP_COLUMNS = [
	'Symbol',
	'Price Level',
	'Note',
	'Foreground Color',
	'Background Color',
	'Diameter',
	'Text Alignment',
	'Draw Note Price Horizontal Line'
];

/** Bookmap Cloud Notes: one note per non-null level and max change window. */
export function bookmapCsv(doc: LevelsDocument, symbol = doc.price_of): string {
	const rows: (string | number)[][] = [BOOKMAP_COLUMNS];
	const note = (price: number, text: string, kind: keyof typeof KIND_COLOURS) =>
		rows.push([symbol, price, text, '#ffffff', KIND_COLOURS[kind], 10, 'left', 'TRUE']);
	for (const l of doc.levels) if (l.price !== null) note(l.price, l.label, l.kind);
	for (const m of doc.max_change) {
		if (m.strike !== null) note(m.strike, `Max Chg ${m.window}`, 'change');
	}
	return rows.map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}

const TOS_COLOURS: Readonly<Record<string, string>> = {
	zero: 'Color.MAGENTA',
	pos: 'Color.GREEN',
	neg: 'Color.RED',
	change: 'Color.CYAN'
};

function plotName(id: string): string {
	return id.replace(/(^|_)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
}

/** A complete thinkScript study with the levels and their time written in. */
export function thinkScript(doc: LevelsDocument): string {
	const lines = [
		`# gexdeck levels for ${doc.price_of} (${doc.ticker} ${doc.category})`,
		`# as of ${doc.as_of.et}; paste again to update (thinkScript cannot fetch).`,
		'declare upper;',
		`AddLabel(yes, "gexdeck ${doc.price_of} ${doc.as_of.et}", Color.GRAY);`
	];
	const plot = (
		name: string,
		label: string,
		price: number | null,
		kind: string,
		reason: string | null
	) => {
		if (price === null) {
			lines.push(`# ${label}: none (${reason ?? 'not available'})`);
			lines.push(`plot ${name} = Double.NaN;`);
		} else {
			lines.push(`plot ${name} = ${priceText(price)};`);
		}
		lines.push(`${name}.SetDefaultColor(${TOS_COLOURS[kind] ?? 'Color.GRAY'});`);
		lines.push(`${name}.SetPaintingStrategy(PaintingStrategy.HORIZONTAL);`);
		if (price !== null) {
			lines.push(
				`AddChartBubble(IsNaN(close[-1]) and !IsNaN(close), ${name}, "${label}", ${TOS_COLOURS[kind] ?? 'Color.GRAY'}, yes);`
			);
		}
	};
	for (const l of doc.levels) plot(plotName(l.id), l.label, l.price, l.kind, l.reason);
	for (const m of doc.max_change) {
		plot(plotName(`max_change_${m.window}`), `Max Chg ${m.window}`, m.strike, 'change', m.reason);
	}
	return lines.join('\n') + '\n';
}
