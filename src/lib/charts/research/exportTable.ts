/**
 * Downloads of what a research view shows: CSV (RFC 4180: header row, CRLF line ends, a cell
 * quoted when it holds a comma, quote, CR or LF, quotes doubled) and JSON (the same rows with
 * the view's ticker, metric, data time, filters and the URL of the view). Numbers are written
 * in JavaScript's shortest round-trip form, so a CSV cell parses back to the exact value.
 */
import type { Cell, ShownTable } from './shownRows';

function csvCell(c: Cell): string {
	if (c === null) return '';
	const s = String(c);
	return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

export function toCsv(table: Pick<ShownTable, 'columns' | 'rows'>): string {
	const lines = [table.columns, ...table.rows].map((r) => r.map(csvCell).join(','));
	return lines.join('\r\n') + '\r\n';
}

export interface ExportMeta {
	ticker: string;
	metric: string;
	/** The data's own time (unix s). */
	timestamp: number;
	spot: number;
	display: string;
	/** The upstream filters in force. */
	filters: Record<string, string | number | boolean>;
	/** The view's URL path and query (view state only, never data). */
	view: string;
}

export function toJson(table: ShownTable, meta: ExportMeta): string {
	return JSON.stringify(
		{ ...meta, columns: table.columns, note: table.note, rows: table.rows },
		null,
		1
	);
}

/** File name stem: ticker, metric, display and the data time, e.g. SPX_iv_mid_surface_20261123T1430. */
export function exportName(meta: ExportMeta): string {
	const t = new Date(meta.timestamp * 1000).toISOString().replace(/[-:]/g, '').slice(0, 13);
	return `${meta.ticker}_${meta.metric}_${meta.display}_${t}`.replace(/[^A-Za-z0-9_.^-]/g, '_');
}
