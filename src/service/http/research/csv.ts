/** CSV rendering of research results (RFC 4180 line endings, header row first). */
import type { ResearchResult } from '../../../lib/contract/research';

function line(cells: (string | number | null)[]): string {
	return cells
		.map((c) => {
			if (c === null) return '';
			const s = String(c);
			return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
		})
		.join(',');
}

export function researchCsv(result: ResearchResult): string {
	const out: string[] = [];
	switch (result.view) {
		case 'table':
			out.push(line(['expiry', 'dte', 'strike', 'type', 'value']));
			for (const r of result.rows ?? [])
				out.push(line([r.expiry, r.dte, r.strike, r.type, r.value]));
			break;
		case 'skew':
			out.push(line(['expiry', 'dte', 'type', 'strike', 'value']));
			for (const s of result.series ?? []) {
				for (const [k, v] of s.points) out.push(line([s.expiry, s.dte, s.type, k, v]));
			}
			break;
		case 'term':
			if (result.level) {
				out.push(line(['expiry', 'dte', 'value']));
				for (const r of result.level.expiries) out.push(line([r.expiry, r.dte, r.value]));
			} else {
				out.push(line(['expiry', 'dte', 'type', 'value']));
				for (const r of result.term ?? []) out.push(line([r.expiry, r.dte, r.type, r.value]));
			}
			break;
		case 'surface': {
			const s = result.surface!;
			out.push(line(['expiry', 'dte', 'strike', 'value']));
			s.expiries.forEach((e, i) => {
				s.strikes.forEach((k, j) => out.push(line([e, s.dte[i], k, s.values[i][j]])));
			});
			break;
		}
		case 'level':
			out.push(line(['expiry', 'dte', 'value']));
			out.push(line(['all', '', result.level?.value ?? null]));
			for (const r of result.level?.expiries ?? []) out.push(line([r.expiry, r.dte, r.value]));
			break;
	}
	return out.join('\r\n') + '\r\n';
}
