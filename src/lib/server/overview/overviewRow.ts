/**
 * One step of a day overview: what a whole-day view draws of one calculation (per strike net GEX
 * by volume and by OI; spot, zero gamma and the four majors), taken from the raw record that
 * opens the step, and its bytes on disk (the payload of one RecordKind.OverviewRow record).
 *
 *   [u8 version 2][u8 flags][u16 0][u32 strikes n]
 *   [f64 spot, zeroGamma, majorPosVol, majorPosOi, majorNegVol, majorNegOi]
 *   [f64 scale vol][f64 scale oi] (f64: a column of f32 subnormals has a scale f32 cannot hold)
 *   [f64 strike] x n (absent when flags say the previous row's)  [i16 gexVol] x n  [i16 gexOi] x n
 *
 * Net GEX is an int16 times its column's scale (largest |value| / 32767): within 1/65534 of the
 * column's largest value, 256 times finer than the int8 cells the body serves (overviewBody.ts).
 * A day's strikes change rarely, so a row stores them only when they differ from the row before
 * it in the file: 4 bytes a strike where version 1 took 16 (f64 strike, two f32), a full
 * 23,400 x 400 day 3.8 MB on disk instead of 14.5 MB, and less to read for a cold answer. A
 * file of version 1 rows does not decode and is rebuilt from the raw file (DayOverviews).
 */
import { gunzipSync } from 'node:zlib';
import type { ClassicChain } from '../../contract/schemas';
import { parseGroup } from '../../contract/hubs';
import { groupOfStream } from '../../contract/feeds';
import { columnarGex, decodeColumnarFrame, type ColumnarGex } from '../../wire';
import { RecordKind } from '../recorder/recordFormat';
import type { OverviewKind } from './dayOverviews';

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

/** 2: int16 cells, strikes once per change (1: f64 strikes and f32 cells in every row). */
const VERSION = 2;
const HEAD = 8 + 6 * 8 + 2 * 8;
/** Flags bit: the row's strikes are the previous row's (none stored). */
const SHARED_STRIKES = 1;
const FULL = 32767;
/** A cell whose value was not finite. */
const MISSING = -32768;
/** Largest |stored - value| of a cell, as a fraction of its row's largest |value| (GEX column). */
export const ROW_CELL_ERROR = 1 / (2 * FULL);

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
	const gex = gexOfRecord(kind, payload);
	return gex ? { ...rowOfGex(gex), timestamp } : undefined;
}

/**
 * The chain of one raw record (a streamed frame or a polled/imported snapshot); undefined when
 * the record is not a chain or does not decode.
 */
export function gexOfRecord(kind: RecordKind, payload: Uint8Array): ColumnarGex | undefined {
	try {
		if (kind === RecordKind.StreamAny) {
			const frame = decodeColumnarFrame(payload);
			return frame.kind === 'gex' ? frame.value : undefined;
		}
		if (kind === RecordKind.SnapshotGzipJson) {
			const chain = JSON.parse(gunzipSync(payload).toString('utf8')) as ClassicChain;
			return Array.isArray(chain?.strikes) ? columnarGex(chain) : undefined;
		}
	} catch {
		// a damaged record: nothing to show
	}
	return undefined;
}

/** Whether two strike lists are the same (a row then stores none of its own). */
export function sameStrikes(a: ArrayLike<number> | undefined, b: ArrayLike<number>): boolean {
	if (a === b) return true;
	if (!a || a.length !== b.length) return false;
	for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
	return true;
}

/** The column's step: its largest finite |value| over FULL (0 for a column of zeros). */
function scaleOf(values: ArrayLike<number>): number {
	let max = 0;
	for (let i = 0; i < values.length; i++) {
		const a = Math.abs(values[i]);
		if (a > max && Number.isFinite(a)) max = a;
	}
	return max / FULL;
}

/**
 * The row's bytes; `previous` is the strike list of the row written just before it in the same
 * file (undefined for a file's first row, or the first after an open): a row with the same
 * strikes stores none.
 */
export function encodeRow(row: OverviewRow, previous: ArrayLike<number> | undefined): Buffer {
	const n = row.strikes.length;
	const shared = n > 0 && sameStrikes(previous, row.strikes);
	const strikeBytes = shared ? 0 : n * 8;
	const out = Buffer.alloc(HEAD + strikeBytes + n * 4);
	out[0] = VERSION;
	out[1] = shared ? SHARED_STRIKES : 0;
	out.writeUInt32LE(n, 4);
	[
		row.spot,
		row.zeroGamma,
		row.majorPosVol,
		row.majorPosOi,
		row.majorNegVol,
		row.majorNegOi
	].forEach((v, i) => out.writeDoubleLE(v, 8 + i * 8));
	const scales = [scaleOf(row.gexVol), scaleOf(row.gexOi)];
	out.writeDoubleLE(scales[0], 56);
	out.writeDoubleLE(scales[1], 64);
	let at = HEAD;
	if (!shared) for (let i = 0; i < n; i++, at += 8) out.writeDoubleLE(row.strikes[i], at);
	[row.gexVol, row.gexOi].forEach((values, c) => {
		const scale = scales[c];
		for (let i = 0; i < n; i++, at += 2) {
			const v = values[i];
			const q = !Number.isFinite(v) ? MISSING : scale > 0 ? Math.round(v / scale) : 0;
			out.writeInt16LE(q, at);
		}
	});
	return out;
}

/**
 * The row a payload holds (time from its record); undefined when it is not one (damaged, of an
 * older format, or sharing the strikes of a row it does not follow). `previous` is the strike
 * list of the row before it in its file.
 */
export function decodeRow(
	timestamp: number,
	payload: Buffer,
	previous: Float64Array | undefined
): OverviewRow | undefined {
	if (payload.length < HEAD || payload[0] !== VERSION) return undefined;
	const n = payload.readUInt32LE(4);
	const shared = (payload[1] & SHARED_STRIKES) !== 0;
	if (shared && previous?.length !== n) return undefined;
	if (payload.length !== HEAD + (shared ? 0 : n * 8) + n * 4) return undefined;
	const scalar = (i: number) => payload.readDoubleLE(8 + i * 8);
	// Copied out whole (little-endian, as every platform Node runs on here): a day is 2,340 rows
	// of 1,200 numbers, and value-by-value reads were most of an answer's time.
	const column = (from: number, bytes: number) =>
		Uint8Array.prototype.slice.call(payload, from, from + bytes).buffer;
	// A shared list is the previous row's own array: the body's encoder maps it to rows once.
	const strikes = shared ? previous! : new Float64Array(column(HEAD, n * 8));
	// The cells are decoded when first read: an answer of the lines alone (`cells=none`, the
	// levels path's and Classic's) never pays for a day's ~1.9 million of them.
	let cells: Int16Array | undefined;
	const values = (from: number, scale: number) => {
		cells ??= new Int16Array(column(HEAD + (shared ? 0 : n * 8), n * 4));
		const out = new Float32Array(n);
		for (let i = 0; i < n; i++) {
			const q = cells[from + i];
			out[i] = q === MISSING ? Number.NaN : q * scale;
		}
		return out;
	};
	const volScale = payload.readDoubleLE(56);
	const oiScale = payload.readDoubleLE(64);
	let gexVol: Float32Array | undefined;
	let gexOi: Float32Array | undefined;
	return {
		timestamp,
		spot: scalar(0),
		zeroGamma: scalar(1),
		majorPosVol: scalar(2),
		majorPosOi: scalar(3),
		majorNegVol: scalar(4),
		majorNegOi: scalar(5),
		strikes,
		get gexVol() {
			return (gexVol ??= values(0, volScale));
		},
		get gexOi() {
			return (gexOi ??= values(n, oiScale));
		}
	};
}

/** The chain streams' overview kind (DayOverviews' default). */
export const chainOverview: OverviewKind<OverviewRow> = {
	has: hasOverview,
	ofRecord: rowOfRecord,
	encode: (row, previous) => encodeRow(row, previous?.strikes),
	decode: (timestamp, payload, previous) => decodeRow(timestamp, payload, previous?.strikes)
};
