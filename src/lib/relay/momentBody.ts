/**
 * One recorded chain as JSON (GET /history/<ticker>/<stream>/moment): what Classic's histogram
 * draws at a moment of a past day, readable on the page's main thread without the wire codec.
 * A past day's first moment comes this way, asked with the page (a preload) and drawn as the
 * page starts, instead of after the decode worker has loaded, compiled and read it (~50-100 ms
 * of a cold load; issue 26). Every other moment is still read by the worker (momentReader.ts).
 *
 *   { "at": <unix s>, "chain": { ...the ColumnarGex, each typed array as an array of numbers } }
 *
 * A non-finite number (a gap in `priors`) is JSON null and comes back as NaN. Pure and shared:
 * the server encodes, the page decodes.
 */
import { COLUMNAR_GEX_ARRAYS, COLUMNAR_GEX_SCALARS, type ColumnarGex } from '../wire/columnar';

const SCALARS = COLUMNAR_GEX_SCALARS;
const ARRAYS = COLUMNAR_GEX_ARRAYS;

export interface Moment {
	/** The moment's data time (unix s): the overview step it was asked for. */
	at: number;
	chain: ColumnarGex;
}

export class MomentBodyError extends Error {}

const finiteOrNull = (v: number) => (Number.isFinite(v) ? v : null);

export function encodeMomentBody(moment: Moment): string {
	const c = moment.chain;
	const chain: Record<string, unknown> = { ticker: c.ticker };
	for (const k of SCALARS) chain[k] = finiteOrNull(c[k]);
	for (const k of ARRAYS) chain[k] = Array.from(c[k], finiteOrNull);
	return JSON.stringify({ at: moment.at, chain });
}

const numberOf = (v: unknown, field: string): number => {
	if (v === null) return Number.NaN;
	if (typeof v !== 'number') throw new MomentBodyError(`moment: ${field} is not a number`);
	return v;
};

export function decodeMomentBody(text: string): Moment {
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch {
		throw new MomentBodyError('moment: not JSON');
	}
	const body = parsed as { at?: unknown; chain?: Record<string, unknown> } | null;
	if (!body || typeof body.at !== 'number' || !body.chain || typeof body.chain !== 'object') {
		throw new MomentBodyError('moment: not a moment');
	}
	const src = body.chain;
	if (typeof src.ticker !== 'string') throw new MomentBodyError('moment: no ticker');
	const chain = { ticker: src.ticker } as Record<string, unknown>;
	for (const k of SCALARS) chain[k] = numberOf(src[k], k);
	for (const k of ARRAYS) {
		const list = src[k];
		if (!Array.isArray(list)) throw new MomentBodyError(`moment: ${k} is not a list`);
		// A plain loop: a callback a value was ~5 ms of a cold page for a 400-strike chain.
		const out = new Float64Array(list.length);
		for (let i = 0; i < list.length; i++) {
			const v: unknown = list[i];
			out[i] = typeof v === 'number' ? v : numberOf(v, `${k}[${i}]`);
		}
		chain[k] = out;
	}
	const gex = chain as unknown as ColumnarGex;
	const n = gex.strikes.length;
	if (gex.gexVol.length !== n || gex.gexOi.length !== n) {
		throw new MomentBodyError('moment: a GEX list is not one value a strike');
	}
	if (gex.priors.length !== n * gex.priorCount) {
		throw new MomentBodyError('moment: priors are not priorCount a strike');
	}
	return { at: body.at, chain: gex };
}
