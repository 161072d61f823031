/**
 * The flow overview body: a whole day of one orderflow stream at the overview's step, as the
 * series the Orderflow view draws (GET /history/<ticker>/<orderflow stream>/overview, sent
 * gzip-encoded):
 *
 *   'GXF1' [u32 LE header length][header JSON, UTF-8][zero padding to a multiple of 8]
 *   [f64 time] x n   then per series of header.series: [f64 value] x n
 *
 * Values are the feed's own numbers (f64, exact): a full day is 2,340 steps x 8 numbers, 150 KB
 * before gzip. Pure and shared: the server encodes, the page decodes.
 */

export const FLOW_OVERVIEW_MAGIC = 'GXF1';

export interface FlowOverviewHeader {
	ticker: string;
	stream: string;
	day: string;
	/** Seconds between steps: a point is the first payload of its step. */
	step: number;
	columns: number;
	/** The series' names, in the body's order (FLOW_SERIES). */
	series: string[];
}

export interface DecodedFlowOverview {
	header: FlowOverviewHeader;
	times: Float64Array;
	/** One array per series of header.series, each as long as `times`. */
	values: Float64Array[];
}

const pad8 = (n: number) => (n + 7) & ~7;

export function encodeFlowOverviewBody(
	meta: Omit<FlowOverviewHeader, 'columns'>,
	rows: readonly { timestamp: number; values: ArrayLike<number> }[]
): Uint8Array {
	const n = rows.length;
	const header: FlowOverviewHeader = { ...meta, columns: n };
	const json = new TextEncoder().encode(JSON.stringify(header));
	const start = pad8(8 + json.length);
	const out = new Uint8Array(start + n * 8 * (1 + meta.series.length));
	out.set(new TextEncoder().encode(FLOW_OVERVIEW_MAGIC), 0);
	const view = new DataView(out.buffer);
	view.setUint32(4, json.length, true);
	out.set(json, 8);
	let at = start;
	for (const r of rows) view.setFloat64((at += 8) - 8, r.timestamp, true);
	meta.series.forEach((_, s) => {
		for (const r of rows) view.setFloat64((at += 8) - 8, r.values[s], true);
	});
	return out;
}

export class FlowOverviewBodyError extends Error {}

export function decodeFlowOverviewBody(bytes: Uint8Array): DecodedFlowOverview {
	const magic = new TextDecoder().decode(bytes.subarray(0, 4));
	if (bytes.length < 8 || magic !== FLOW_OVERVIEW_MAGIC) {
		throw new FlowOverviewBodyError('not a flow overview');
	}
	const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	const jsonLength = view.getUint32(4, true);
	if (8 + jsonLength > bytes.length) throw new FlowOverviewBodyError('header cut short');
	const header = JSON.parse(
		new TextDecoder().decode(bytes.subarray(8, 8 + jsonLength))
	) as FlowOverviewHeader;
	const n = header.columns;
	let at = pad8(8 + jsonLength);
	if (at + n * 8 * (1 + header.series.length) !== bytes.length) {
		throw new FlowOverviewBodyError('flow overview is not the size its header says');
	}
	const column = () => {
		const a = new Float64Array(n);
		for (let i = 0; i < n; i++, at += 8) a[i] = view.getFloat64(at, true);
		return a;
	};
	const times = column();
	const values = header.series.map(column);
	return { header, times, values };
}
