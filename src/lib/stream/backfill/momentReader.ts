/**
 * The chain at one recorded moment, read from the server by itself: `/history/<t>/<s>?day=&from=
 * <t>&to=<t>` answers the one record at that time, found through the recording's index without
 * reading the rest of the day (~8 KB for a 400-strike chain; issue 26). Used by Classic's
 * timeline drawn from the day overview (overviewTimeline.ts), whose steps are records' times.
 *
 * A scrub asks many moments in a row: one read is in flight at a time and the newest moment
 * wanted goes next (the ones passed over meanwhile are never asked); every chain read is handed
 * to `onchain` as it arrives (the chart follows the drag) and kept in a small cache, so
 * stepping back and forth reads nothing again. Browser or tests: the reader is injected.
 */
import type { Moment } from '../../relay/momentBody';
import type { ColumnarGex } from '../../wire/columnar';
import { fetchBackfill } from './backfillClient';

/** Chains kept (a 400-strike chain is ~10-30 KB decoded). */
export const MOMENT_CACHE = 64;

export interface MomentReaderOptions {
	ticker: string;
	stream: string;
	/** The recorded day (ET) the moments are of. */
	day: string;
	/** The chain read at `at` (undefined: nothing recorded at that exact time). */
	onchain: (at: number, chain: ColumnarGex | undefined) => void;
	/** A read failed (the chart keeps what it shows). */
	onerror?: (at: number, error: Error) => void;
	read?: typeof fetchBackfill;
	/**
	 * A moment already on its way by another road (Classic's first, asked with the page as JSON,
	 * momentClient.ts): awaited once before the first read and kept, so the moment it holds is
	 * never read again. Undefined or failing: nothing kept.
	 */
	first?: Promise<Moment | undefined>;
}

export class MomentReader {
	private readonly cache = new Map<number, ColumnarGex | undefined>();
	private wanted: number | undefined;
	private busy = false;
	private closed = false;
	/** Reads asked of the server so far (tests, the page's readout). */
	reads = 0;

	private first: Promise<Moment | undefined> | undefined;

	constructor(private readonly options: MomentReaderOptions) {
		this.first = options.first;
	}

	/** Shows the chain at `at`: from the cache at once, else after the reads before it. */
	want(at: number): void {
		if (this.closed) return;
		if (this.cache.has(at)) {
			this.wanted = undefined;
			this.options.onchain(at, this.cache.get(at));
			return;
		}
		this.wanted = at;
		if (!this.busy) void this.pump();
	}

	/** No more chains are delivered (another day or group). */
	close(): void {
		this.closed = true;
		this.wanted = undefined;
	}

	private async pump(): Promise<void> {
		this.busy = true;
		const { ticker, stream, day, read = fetchBackfill } = this.options;
		const first = this.first;
		if (first) {
			this.first = undefined;
			const moment = await first.catch(() => undefined);
			if (moment) this.remember(moment.at, moment.chain);
		}
		while (this.wanted !== undefined && !this.closed) {
			const at = this.wanted;
			this.wanted = undefined;
			// Wanted again while its read was out (the timeline refreshed): read once.
			if (this.cache.has(at)) {
				this.options.onchain(at, this.cache.get(at));
				continue;
			}
			this.reads++;
			try {
				const result = await read(ticker, stream, { day, from: at, to: at });
				const found = result.updates.find((u) => u.kind === 'gex' && u.timestamp === at);
				const chain = found?.kind === 'gex' ? found.value : undefined;
				this.remember(at, chain);
				if (!this.closed) this.options.onchain(at, chain);
			} catch (err) {
				if (!this.closed) this.options.onerror?.(at, err as Error);
			}
		}
		this.busy = false;
	}

	private remember(at: number, chain: ColumnarGex | undefined): void {
		this.cache.set(at, chain);
		if (this.cache.size > MOMENT_CACHE) {
			this.cache.delete(this.cache.keys().next().value as number);
		}
	}
}
