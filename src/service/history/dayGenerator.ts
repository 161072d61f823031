/**
 * One ticker-day run of the engine in memory (see historyStore.ts): every requested category
 * serialised at every second into JSON arrays, continuable to a later tick (the live day so far).
 */
import { HistoryUnavailableError, type CanonicalCategory } from '../source';
import { sessionSeconds } from '../market/clock';
import { dayValue, stepModeOf, type DayKey } from './dayKeys';
import { viewOf } from '../market/universe';
import { TickerDay } from '../engine/tickerDay';
import { viewFormatAt } from '../engine/live';
import { DEFAULT_PAYLOAD_PROFILE, type PayloadProfile } from '../engine/profiles';

function yieldToLoop(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A JSON array written into 4 MB chunks (a day is about 10^5 records of a few KB; 15 categories
 * of an index day must not each hold a doubled buffer), joined once at the end.
 */
const CLOSE = Buffer.from(']');

class ArrayWriter {
	private static readonly CHUNK = 4 << 20;
	private readonly chunks: Buffer[] = [];
	private current = Buffer.allocUnsafe(ArrayWriter.CHUNK);
	private used = 0;
	private count = 0;

	constructor() {
		this.write('[');
	}

	push(json: string): void {
		if (this.count++ > 0) this.write(',');
		this.write(json);
	}

	/** The array so far, closed (the writer can go on appending). */
	snapshot(): Buffer {
		return Buffer.concat([...this.chunks, this.current.subarray(0, this.used), CLOSE]);
	}

	private write(text: string): void {
		const worst = text.length * 3;
		if (this.used + worst > this.current.length) {
			this.chunks.push(this.current.subarray(0, this.used));
			this.current = Buffer.allocUnsafe(Math.max(ArrayWriter.CHUNK, worst));
			this.used = 0;
		}
		this.used += this.current.write(text, this.used);
	}
}

/**
 * Runs the engine for one ticker and day, serialising `categories` at every second, and can be
 * extended later: a request for the live day generates up to the live second, and the next one
 * continues from there instead of starting again at the open.
 */
export class DayGenerator {
	private readonly day: TickerDay;
	private readonly mode: 'gamma' | 'front' | 'rings';
	private readonly writers: ArrayWriter[];
	private chain: Promise<unknown> = Promise.resolve();

	constructor(
		private readonly seed: number,
		readonly ticker: string,
		readonly categories: readonly DayKey[],
		readonly date: string,
		private readonly profile: PayloadProfile = DEFAULT_PAYLOAD_PROFILE
	) {
		const view = viewOf(ticker);
		if (!view) throw new HistoryUnavailableError(`Unknown ticker ${ticker}.`, 404);
		this.day = new TickerDay(seed, view.source, date, 'rings');
		// GEX categories need only gamma across the chain, the front sets' only their greeks (see
		// TickerDay.step).
		this.mode = stepModeOf(categories);
		this.writers = categories.map(() => new ArrayWriter());
	}

	/** Last generated tick (-1 before the open). */
	get tick(): number {
		return this.day.tick;
	}

	/** Every category's array from the open through `endTick` (calls are serialised). */
	extendTo(endTick: number, signal?: AbortSignal): Promise<Map<DayKey, Buffer>> {
		const run = this.chain.then(() => this.run(endTick, signal));
		this.chain = run.catch(() => undefined);
		return run;
	}

	private async run(endTick: number, signal?: AbortSignal): Promise<Map<DayKey, Buffer>> {
		const { day, seed, ticker, date } = this;
		let slice = performance.now();
		// The day ends at its close tick (13:00 on an early close) whatever end was asked for.
		while (day.tick < endTick && day.step(this.mode)) {
			const format = viewFormatAt(seed, ticker, date, day.tick);
			this.categories.forEach((category, i) =>
				this.writers[i].push(JSON.stringify(dayValue(day, category, format, this.profile)))
			);
			if (performance.now() - slice > 40) {
				await yieldToLoop();
				if (signal?.aborted) throw new HistoryUnavailableError('History generation aborted.', 503);
				slice = performance.now();
			}
		}
		return new Map(this.categories.map((c, i) => [c, this.writers[i].snapshot()]));
	}
}

/** Every category of `categories` for one day through `endTick`, in one engine pass. */
export function generateDays(
	seed: number,
	ticker: string,
	categories: readonly DayKey[],
	date: string,
	endTick: number = sessionSeconds(date),
	signal?: AbortSignal,
	profile: PayloadProfile = DEFAULT_PAYLOAD_PROFILE
): Promise<Map<DayKey, Buffer>> {
	return new DayGenerator(seed, ticker, categories, date, profile).extendTo(endTick, signal);
}

/** One category's day (see generateDays). */
export async function generateDay(
	seed: number,
	ticker: string,
	category: CanonicalCategory,
	date: string,
	endTick: number = sessionSeconds(date),
	signal?: AbortSignal
): Promise<Buffer> {
	const days = await generateDays(seed, ticker, [category], date, endTick, signal);
	return days.get(category) as Buffer;
}
