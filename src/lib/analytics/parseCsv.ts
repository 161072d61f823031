/**
 * RFC 4180 records: fields separated by commas, records by CRLF or LF; a field in double quotes
 * may hold commas, line breaks and doubled quotes (`""` is one `"`). A line break at the very end
 * of the text ends the last record rather than starting an empty one. Lenient only where it
 * cannot change a value: blanks (spaces, tabs) around a quoted field are ignored. Anything else
 * malformed is a CsvSyntaxError naming the line, because a chain read wrong is worse than none.
 */

export class CsvSyntaxError extends Error {
	constructor(
		message: string,
		/** 1-based line the problem is on. */
		readonly line: number
	) {
		super(message);
		this.name = 'CsvSyntaxError';
	}
}

export interface CsvRecord {
	cells: string[];
	/** 1-based line the record starts on (a quoted line break makes a record span lines). */
	line: number;
	/** An empty or all-blank line: one unquoted cell of nothing but spaces or tabs. */
	blank: boolean;
}

export interface CsvOptions {
	/** Lines whose first non-blank characters are this prefix (outside quotes) are skipped. */
	comment?: string;
}

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

function isBlank(code: number): boolean {
	return code === 32 || code === 9;
}

/** Splits CSV text into records (see the file comment). */
export function readCsvRecords(text: string, options: CsvOptions = {}): CsvRecord[] {
	const n = text.length;
	const records: CsvRecord[] = [];
	let i = 0;
	let line = 1;

	/** Consumes the record separator at `i`, if any; true when the record ended. */
	const endOfRecord = (): boolean => {
		const c = text.charCodeAt(i);
		if (c === LF) {
			i += 1;
			line++;
			return true;
		}
		if (c === CR && text.charCodeAt(i + 1) === LF) {
			i += 2;
			line++;
			return true;
		}
		return i >= n;
	};

	while (i < n) {
		if (options.comment) {
			let k = i;
			while (k < n && isBlank(text.charCodeAt(k))) k++;
			if (text.startsWith(options.comment, k)) {
				const eol = text.indexOf('\n', k);
				i = eol < 0 ? n : eol + 1;
				line++;
				continue;
			}
		}
		const start = line;
		const cells: string[] = [];
		let quotedAny = false;
		for (;;) {
			let k = i;
			while (k < n && isBlank(text.charCodeAt(k))) k++;
			if (text.charCodeAt(k) === QUOTE) {
				quotedAny = true;
				const opened = line;
				let value = '';
				i = k + 1;
				for (;;) {
					const q = text.indexOf('"', i);
					if (q < 0)
						throw new CsvSyntaxError(
							`unterminated quoted field (the quote opened on line ${opened} is never closed)`,
							opened
						);
					const chunk = text.slice(i, q);
					for (let p = chunk.indexOf('\n'); p >= 0; p = chunk.indexOf('\n', p + 1)) line++;
					value += chunk;
					if (text.charCodeAt(q + 1) === QUOTE) {
						value += '"';
						i = q + 2;
					} else {
						i = q + 1;
						break;
					}
				}
				while (i < n && isBlank(text.charCodeAt(i))) i++;
				cells.push(value);
				if (text.charCodeAt(i) === COMMA) {
					i++;
					continue;
				}
				if (endOfRecord()) break;
				throw new CsvSyntaxError(
					`unexpected '${text[i]}' after a closing quote (a quote inside a quoted field is written "")`,
					line
				);
			}
			let end = i;
			for (;;) {
				const c = text.charCodeAt(end);
				if (end >= n || c === COMMA || c === LF || (c === CR && text.charCodeAt(end + 1) === LF))
					break;
				if (c === QUOTE)
					throw new CsvSyntaxError(
						'a quote inside an unquoted field (quote the whole field and write the quote as "")',
						line
					);
				end++;
			}
			cells.push(text.slice(i, end));
			i = end;
			if (text.charCodeAt(i) === COMMA) {
				i++;
				continue;
			}
			endOfRecord();
			break;
		}
		records.push({
			cells,
			line: start,
			blank: !quotedAny && cells.length === 1 && cells[0].trim() === ''
		});
	}
	return records;
}

/** One field as RFC 4180 writes it: quoted when it holds a comma, quote, line break or blank edge. */
export function csvField(value: string): string {
	return /[",\r\n]|^[ \t]|[ \t]$/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** Records as CSV text (CRLF between records); a lone empty cell is quoted so it stays a record. */
export function writeCsv(rows: readonly (readonly string[])[], eol = '\r\n'): string {
	return rows
		.map((cells) => (cells.length === 1 && cells[0] === '' ? '""' : cells.map(csvField).join(',')))
		.join(eol);
}
