/**
 * Test helper of the ring's chunk tests: a sealed SPX classic chunk of one chain frame per
 * timestamp, built as the live recorder builds them (ChunkBuilder, columnar values).
 */
import type { ClassicChain } from '../../contract/schemas';
import { columnarGex } from '../../wire/columnar';
import { ChunkBuilder, type RingChunk } from './ringChunk';

/** `chain` at each of `timestamps` (ascending), its spot at each given by `spotAt`. */
export function chainChunk(
	chain: ClassicChain,
	timestamps: number[],
	spotAt: (ts: number) => number
): RingChunk {
	const b = new ChunkBuilder('SPX_classic_gex_full', 'gex', timestamps[0]);
	for (const ts of timestamps) {
		b.append({
			kind: 'gex',
			group: 'SPX_classic_gex_full',
			ticker: 'SPX',
			timestamp: ts,
			value: columnarGex({ ...chain, timestamp: ts, spot: spotAt(ts) })
		});
	}
	return b.seal();
}
