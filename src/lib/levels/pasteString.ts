/**
 * The paste string for platforms that cannot make network calls (TradingView Pine, and any
 * tool that takes the common `label, price` form). Grammar (also in integrations/tradingview/):
 *
 *   line    = symbol ":" [ " " pair *( ", " pair ) ]
 *   symbol  = 1*( ALPHA / DIGIT / "_" / "." / "!" )
 *   pair    = label ", " price
 *   label   = part *( " & " part )          ; labels that share one price, merged
 *   part    = 1*( any character but "," "&" ":" ), no leading or trailing space
 *   price   = [ "-" ] 1*DIGIT [ "." 1*DIGIT ]   ; always a dot decimal, no exponent
 *
 * Pairs are written highest price first. `SPX: Major + vol, 7590, Zero Gamma, 7567.8`.
 * This module writes the dashboard's strings and is the reference parser of the grammar;
 * integrations/tradingview/gexdeck-levels.pine follows it.
 */
import type { LevelsDocument } from './document';

export interface PastePair {
	labels: string[];
	price: number;
}

export interface PasteLevels {
	symbol: string;
	pairs: PastePair[];
}

const SYMBOL = /^[A-Za-z0-9_.!]+$/;
const PRICE = /^-?\d+(\.\d+)?$/;
const PART = /^[^,&:\s](?:[^,&:]*[^,&:\s])?$/;

/** A price as the grammar writes it: dot decimal, no exponent, no trailing zeros. */
export function priceText(value: number): string {
	const fixed = value.toFixed(6);
	return fixed.replace(/\.?0+$/, '') || '0';
}

/** Label parts: the characters the grammar reserves replaced, spaces collapsed. */
function cleanPart(label: string): string {
	return label.replace(/[,&:]/g, ' ').replace(/\s+/g, ' ').trim();
}

/** The (label, price) pairs of a document, merged by price, highest first. */
export function pastePairs(doc: LevelsDocument): PastePair[] {
	const byPrice = new Map<string, PastePair>();
	const add = (label: string, price: number | null) => {
		if (price === null) return;
		const key = priceText(price);
		const pair = byPrice.get(key) ?? { labels: [], price: Number(key) };
		const part = cleanPart(label);
		if (part && !pair.labels.includes(part)) pair.labels.push(part);
		byPrice.set(key, pair);
	};
	for (const l of doc.levels) add(l.label, l.price);
	for (const m of doc.max_change) add(`Max Chg ${m.window}`, m.strike);
	return [...byPrice.values()].filter((p) => p.labels.length > 0).sort((a, b) => b.price - a.price);
}

export function formatPaste(levels: PasteLevels): string {
	const body = levels.pairs.map((p) => `${p.labels.join(' & ')}, ${priceText(p.price)}`);
	return body.length > 0 ? `${levels.symbol}: ${body.join(', ')}` : `${levels.symbol}:`;
}

/** The TradingView string of a document. */
export function tradingViewString(doc: LevelsDocument): string {
	return formatPaste({
		symbol: doc.price_of.replace(/[^A-Za-z0-9_.!]/g, ''),
		pairs: pastePairs(doc)
	});
}

export type PasteParse = { ok: true; value: PasteLevels } | { ok: false; error: string };

/** The reference parser: exactly the grammar above, with the position of the first error. */
export function parsePaste(text: string): PasteParse {
	const colon = text.indexOf(':');
	if (colon <= 0) return { ok: false, error: 'expected "SYMBOL:" at the start' };
	const symbol = text.slice(0, colon);
	if (!SYMBOL.test(symbol)) return { ok: false, error: `bad symbol "${symbol}"` };
	const rest = text.slice(colon + 1);
	if (rest === '') return { ok: true, value: { symbol, pairs: [] } };
	if (!rest.startsWith(' ')) return { ok: false, error: 'expected a space after ":"' };
	const fields = rest.slice(1).split(', ');
	if (fields.length % 2 !== 0) return { ok: false, error: 'a label without a price' };
	const pairs: PastePair[] = [];
	for (let i = 0; i < fields.length; i += 2) {
		const labels = fields[i].split(' & ');
		if (!labels.every((p) => PART.test(p))) {
			return { ok: false, error: `bad label "${fields[i]}" (pair ${i / 2 + 1})` };
		}
		if (!PRICE.test(fields[i + 1])) {
			return { ok: false, error: `bad price "${fields[i + 1]}" (pair ${i / 2 + 1})` };
		}
		pairs.push({ labels, price: Number(fields[i + 1]) });
	}
	return { ok: true, value: { symbol, pairs } };
}
