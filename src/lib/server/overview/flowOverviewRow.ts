/**
 * One step of an orderflow stream's day overview: the series the Orderflow view draws (the
 * cumulative session flows, 0DTE and next expiry, and spot: FLOW_SERIES), taken from the raw
 * record that opens the step, and its bytes on disk (the payload of one RecordKind.OverviewRow
 * record in the stream's own `.ovw` file, beside the chain streams' overviews):
 *
 *   [u8 version 0x46][u8 series count][u16 0][u32 0]  [f64 value] x count, FLOW_SERIES order
 *
 * 64 bytes a step, stored exactly (f64, as the feed's numbers are): a full day is 2,340 rows,
 * 215 KB with the records' framing. The version byte is not a chain row's (1, 2), so neither
 * kind of file decodes as the other and a mixed-up file is rebuilt from the raw records.
 */
import { gunzipSync } from 'node:zlib';
import { parseGroup } from '../../contract/hubs';
import { groupOfStream } from '../../contract/feeds';
import type { OrderflowBody } from '../../contract/schemas';
import { FLOW_SERIES, SERIES_COUNT, flowValues } from '../../contract/flowSeries';
import { decodeColumnarFrame } from '../../wire';
import { RecordKind } from '../recorder/recordFormat';
import type { OverviewKind } from './dayOverviews';

export interface FlowRow {
	/** Data time of the orderflow payload (unix s). */
	timestamp: number;
	/** One value per series of FLOW_SERIES. */
	values: Float64Array;
}

const VERSION = 0x46;
const HEAD = 8;

/** Whether a recorded stream's frames are orderflow (the streams that get a flow overview). */
export function hasFlowOverview(ticker: string, stream: string): boolean {
	const parsed = parseGroup(groupOfStream(ticker, stream));
	return parsed.ok && parsed.group.kind !== 'spot' && parsed.group.frame === 'orderflow';
}

/**
 * The flow row of one raw record (a streamed frame or a polled/imported snapshot), its time the
 * record's; undefined when the record is not an orderflow payload or does not decode.
 */
export function flowRowOfRecord(
	kind: RecordKind,
	timestamp: number,
	payload: Uint8Array
): FlowRow | undefined {
	try {
		let body: OrderflowBody | undefined;
		if (kind === RecordKind.StreamAny) {
			const frame = decodeColumnarFrame(payload);
			if (frame.kind === 'orderflow') body = frame.value;
		} else if (kind === RecordKind.SnapshotGzipJson) {
			const json = JSON.parse(gunzipSync(payload).toString('utf8')) as OrderflowBody | null;
			if (json && typeof json === 'object' && FLOW_SERIES.some((k) => k in json)) body = json;
		}
		return body ? { timestamp, values: Float64Array.from(flowValues(body), Number) } : undefined;
	} catch {
		return undefined;
	}
}

export function encodeFlowRow(row: FlowRow): Buffer {
	const out = Buffer.alloc(HEAD + SERIES_COUNT * 8);
	out[0] = VERSION;
	out[1] = SERIES_COUNT;
	for (let s = 0; s < SERIES_COUNT; s++) out.writeDoubleLE(row.values[s], HEAD + s * 8);
	return out;
}

/** The row a payload holds; undefined when it is not one (damaged, or another kind's row). */
export function decodeFlowRow(timestamp: number, payload: Buffer): FlowRow | undefined {
	if (payload.length !== HEAD + SERIES_COUNT * 8) return undefined;
	if (payload[0] !== VERSION || payload[1] !== SERIES_COUNT) return undefined;
	const values = new Float64Array(SERIES_COUNT);
	for (let s = 0; s < SERIES_COUNT; s++) values[s] = payload.readDoubleLE(HEAD + s * 8);
	return { timestamp, values };
}

/** The orderflow streams' overview kind (DayOverviews). */
export const flowOverview: OverviewKind<FlowRow> = {
	has: hasFlowOverview,
	ofRecord: flowRowOfRecord,
	encode: (row) => encodeFlowRow(row),
	decode: (timestamp, payload) => decodeFlowRow(timestamp, payload)
};
