/**
 * One step of a day overview: what a whole-day view draws of one calculation (per strike net GEX
 * by volume and by OI; spot, zero gamma and the four majors), taken from the raw record that
 * opens the step, and its bytes on disk (the payload of one RecordKind.OverviewRow record).
 *
 *   [u8 version 1][u8 0][u16 0][u32 strikes n]
 *   [f64 spot, zeroGamma, majorPosVol, majorPosOi, majorNegVol, majorNegOi]
 *   [f64 strike] x n  [f32 gexVol] x n  [f32 gexOi] x n
 *
 * Net GEX is kept as f32 (a colour and a bar need no more than 7 digits): 16 bytes a strike
 * instead of a raw frame's ~60, and the property test compares with Math.fround of the raw.
 */
import { gunzipSync } from 'node:zlib';
import type { ClassicChain } from '../../contract/schemas';
import { parseGroup } from '../../contract/hubs';
import { groupOfStream } from '../../contract/feeds';
import { columnarGex, decodeColumnarFrame, type ColumnarGex } from '../../wire';
import { RecordKind } from '../recorder/recordFormat';

export interface OverviewRow {
	/** Data time of the calculation (unix s). */
	timestamp: number;
	spot: number;
	zeroGamma: number;
	majorPosVol: number;
	majorPosOi: number;
	majorNegVol: number;
	majorNegOi: number;
	strikes: Float64Array;
	gexVol: Float32Array;
	gexOi: Float32Array;
}

const VERSION = 1;
const HEAD = 8 + 6 * 8;

/** Whether a recorded stream's frames are chains (the streams that get an overview). */
export function hasOverview(ticker: string, stream: string): boolean {
	const parsed = parseGroup(groupOfStream(ticker, stream));
	return parsed.ok && parsed.group.kind !== 'spot' && parsed.group.frame === 'gex';
}

function rowOfGex(g: ColumnarGex): OverviewRow {
	return {
		timestamp: g.timestamp,
		spot: g.spot,
		zeroGamma: g.zeroGamma,
		majorPosVol: g.majorPosVol,
		majorPosOi: g.majorPosOi,
		majorNegVol: g.majorNegVol,
		majorNegOi: g.majorNegOi,
		strikes: Float64Array.from(g.strikes),
		gexVol: Float32Array.from(g.gexVol),
		gexOi: Float32Array.from(g.gexOi)
	};
}

/**
 * The overview row of one raw record (a streamed frame or a polled/imported snapshot), its time
 * the record's; undefined when the record is not a chain or does not decode.
 */
export function rowOfRecord(
	kind: RecordKind,
	timestamp: number,
	payload: Uint8Array
): OverviewRow | undefined {
	try {
		let gex: ColumnarGex | undefined;
		if (kind === RecordKind.StreamAny) {
			const frame = decodeColumnarFrame(payload);
			if (frame.kind === 'gex') gex = frame.value;
		} else if (kind === RecordKind.SnapshotGzipJson) {
			const chain = JSON.parse(gunzipSync(payload).toString('utf8')) as ClassicChain;
			if (Array.isArray(chain?.strikes)) gex = columnarGex(chain);
		}
		return gex ? { ...rowOfGex(gex), timestamp } : undefined;
	} catch {
		return undefined;
	}
}

export function encodeRow(row: OverviewRow): Buffer {
	const n = row.strikes.length;
	const out = Buffer.alloc(HEAD + n * 16);
	out[0] = VERSION;
	out.writeUInt32LE(n, 4);
	[
		row.spot,
		row.zeroGamma,
		row.majorPosVol,
		row.majorPosOi,
		row.majorNegVol,
		row.majorNegOi
	].forEach((v, i) => out.writeDoubleLE(v, 8 + i * 8));
	let at = HEAD;
	for (let i = 0; i < n; i++, at += 8) out.writeDoubleLE(row.strikes[i], at);
	for (let i = 0; i < n; i++, at += 4) out.writeFloatLE(row.gexVol[i], at);
	for (let i = 0; i < n; i++, at += 4) out.writeFloatLE(row.gexOi[i], at);
	return out;
}

/** The row a payload holds (time from its record); undefined when it is not one. */
export function decodeRow(timestamp: number, payload: Buffer): OverviewRow | undefined {
	if (payload.length < HEAD || payload[0] !== VERSION) return undefined;
	const n = payload.readUInt32LE(4);
	if (payload.length !== HEAD + n * 16) return undefined;
	const scalar = (i: number) => payload.readDoubleLE(8 + i * 8);
	// Copied out whole (the columns are little-endian, as every platform Node runs on here): a
	// day is 2,340 rows of 1,200 numbers, and value-by-value reads were most of an answer's time.
	const column = (from: number, bytes: number) =>
		Uint8Array.prototype.slice.call(payload, from, from + bytes).buffer;
	const strikes = new Float64Array(column(HEAD, n * 8));
	const gexVol = new Float32Array(column(HEAD + n * 8, n * 4));
	const gexOi = new Float32Array(column(HEAD + n * 12, n * 4));
	return {
		timestamp,
		spot: scalar(0),
		zeroGamma: scalar(1),
		majorPosVol: scalar(2),
		majorPosOi: scalar(3),
		majorNegVol: scalar(4),
		majorNegOi: scalar(5),
		strikes,
		gexVol,
		gexOi
	};
}
