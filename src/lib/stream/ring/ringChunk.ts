/**
 * Compact typed-array chunks of a group's live history, the unit the IndexedDB ring stores.
 * A chunk covers one aligned span of seconds (default 60) of one group: a row per update with
 * the scalar fields as Float64 (levels, sums, spot) and, every few seconds, the strike ladder
 * as Float32 rows (a 400-strike ladder every second would be ~35 MB per group per 2 hours; at
 * 5 s it is ~7 MB, and Float32 keeps a strike or a GEX value to well under a cent).
 */
import type { StreamUpdate } from '../transport/updates';

export type RecordedKind = 'gex' | 'greek' | 'orderflow' | 'spot';

export interface RingChunk {
	group: string;
	kind: RecordedKind;
	/** Aligned start of the span (unix s) and the last row's timestamp. */
	start: number;
	end: number;
	count: number;
	timestamps: Float64Array;
	scalarNames: string[];
	/** count x scalarNames.length, row-major. */
	scalars: Float64Array;
	ladderColumns: string[];
	/** count + 1 row offsets into `ladder` (in ladder rows); equal neighbours = no ladder. */
	ladderOffsets: Uint32Array;
	/** ladder rows x ladderColumns.length, row-major. */
	ladder: Float32Array;
}

const GEX_SCALARS = [
	'spot',
	'zeroGamma',
	'majorPosVol',
	'majorPosOi',
	'majorNegVol',
	'majorNegOi',
	'sumGexVol',
	'sumGexOi',
	'deltaRiskReversal',
	'pairedSpot'
] as const;
const GEX_LADDER = ['strike', 'gexVol', 'gexOi'];
const GREEK_SCALARS = [
	'spot',
	'majorPositive',
	'majorNegative',
	'majorLongGamma',
	'majorShortGamma',
	'pairedSpot'
] as const;
const GREEK_LADDER = ['strike', 'callValue', 'putValue', 'callIvol', 'putIvol'];

export interface ChunkBuilderOptions {
	chunkSeconds?: number;
	/** Ladders are kept for rows whose timestamp is a multiple of this (default 5). */
	ladderEverySeconds?: number;
}

/** Accumulates the updates of one group; seal() gives the chunk. */
export class ChunkBuilder {
	readonly start: number;
	private readonly timestamps: number[] = [];
	private readonly scalars: number[] = [];
	private readonly ladder: number[] = [];
	private readonly offsets: number[] = [0];
	private scalarNames: string[] = [];
	private ladderColumns: string[] = [];
	private readonly chunkSeconds: number;
	private readonly ladderEvery: number;

	constructor(
		readonly group: string,
		readonly kind: RecordedKind,
		timestamp: number,
		options: ChunkBuilderOptions = {}
	) {
		this.chunkSeconds = options.chunkSeconds ?? 60;
		this.ladderEvery = options.ladderEverySeconds ?? 5;
		this.start = Math.floor(timestamp / this.chunkSeconds) * this.chunkSeconds;
	}

	get count(): number {
		return this.timestamps.length;
	}

	/** Does `timestamp` belong to this chunk's span? */
	covers(timestamp: number): boolean {
		return timestamp >= this.start && timestamp < this.start + this.chunkSeconds;
	}

	/** Adds an update of this group (same kind); an update not newer than the last is skipped. */
	append(u: StreamUpdate): boolean {
		if (u.kind !== this.kind || !this.covers(u.timestamp)) return false;
		const last = this.timestamps[this.timestamps.length - 1];
		if (last !== undefined && u.timestamp <= last) return false;
		const withLadder = u.timestamp % this.ladderEvery === 0;
		switch (u.kind) {
			case 'gex': {
				const v = u.value;
				this.scalarNames = [...GEX_SCALARS];
				this.scalars.push(
					v.spot,
					v.zeroGamma,
					v.majorPosVol,
					v.majorPosOi,
					v.majorNegVol,
					v.majorNegOi,
					v.sumGexVol,
					v.sumGexOi,
					v.deltaRiskReversal,
					u.pairedSpot?.spot ?? Number.NaN
				);
				this.ladderColumns = GEX_LADDER;
				if (withLadder) {
					for (let i = 0; i < v.strikes.length; i++)
						this.ladder.push(v.strikes[i], v.gexVol[i], v.gexOi[i]);
				}
				break;
			}
			case 'greek': {
				const v = u.value;
				this.scalarNames = [...GREEK_SCALARS];
				this.scalars.push(
					v.spot,
					v.majorPositive,
					v.majorNegative,
					v.majorLongGamma,
					v.majorShortGamma,
					u.pairedSpot?.spot ?? Number.NaN
				);
				this.ladderColumns = GREEK_LADDER;
				if (withLadder) {
					for (let i = 0; i < v.strikes.length; i++) {
						this.ladder.push(
							v.strikes[i],
							v.callValue[i],
							v.putValue[i],
							v.callIvol[i],
							v.putIvol[i]
						);
					}
				}
				break;
			}
			case 'orderflow': {
				const body = u.value as unknown as Record<string, unknown>;
				if (this.scalarNames.length === 0) {
					this.scalarNames = Object.keys(body)
						.filter((k) => k !== 'timestamp' && typeof body[k] === 'number')
						.sort();
				}
				for (const k of this.scalarNames) {
					const x = body[k];
					this.scalars.push(typeof x === 'number' ? x : Number.NaN);
				}
				break;
			}
			case 'spot':
				this.scalarNames = ['spot'];
				this.scalars.push(u.value.spot);
				break;
			default:
				return false;
		}
		this.timestamps.push(u.timestamp);
		this.offsets.push(
			this.ladderColumns.length ? this.ladder.length / this.ladderColumns.length : 0
		);
		return true;
	}

	seal(): RingChunk {
		return {
			group: this.group,
			kind: this.kind,
			start: this.start,
			end: this.timestamps[this.timestamps.length - 1] ?? this.start,
			count: this.timestamps.length,
			timestamps: Float64Array.from(this.timestamps),
			scalarNames: this.scalarNames,
			scalars: Float64Array.from(this.scalars),
			ladderColumns: this.ladderColumns,
			ladderOffsets: Uint32Array.from(this.offsets),
			ladder: Float32Array.from(this.ladder)
		};
	}
}

export function isRecordedKind(kind: StreamUpdate['kind']): kind is RecordedKind {
	return kind === 'gex' || kind === 'greek' || kind === 'orderflow' || kind === 'spot';
}

/** One row of a chunk back as named scalars (and its ladder rows, if it kept one). */
export function chunkRow(
	chunk: RingChunk,
	i: number
): { timestamp: number; scalars: Record<string, number>; ladder?: Float32Array } {
	const scalars: Record<string, number> = {};
	const n = chunk.scalarNames.length;
	chunk.scalarNames.forEach((name, j) => (scalars[name] = chunk.scalars[i * n + j]));
	const from = chunk.ladderOffsets[i];
	const to = chunk.ladderOffsets[i + 1];
	const width = chunk.ladderColumns.length;
	const row: { timestamp: number; scalars: Record<string, number>; ladder?: Float32Array } = {
		timestamp: chunk.timestamps[i],
		scalars
	};
	if (to > from) row.ladder = chunk.ladder.subarray(from * width, to * width);
	return row;
}
