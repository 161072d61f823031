import { describe, expect, it } from 'vitest';
import { spxChain } from '../../wire/arbitraries.test-support';
import { columnarGex, type ColumnarGex } from '../../wire/columnar';
import type { BackfillQuery, BackfillResult, fetchBackfill } from './backfillClient';
import { MOMENT_CACHE, MomentReader, type MomentReaderOptions } from './momentReader';

const T0 = 1_767_277_800;
const chainAt = (ts: number) => columnarGex({ ...spxChain(10), ticker: 'SPX', timestamp: ts });

/** A fake /history answering `from=to=<t>` with the one record at t (none off the 10 s grid). */
function server() {
	const asked: BackfillQuery[] = [];
	const pending: (() => void)[] = [];
	let fail = false;
	const read = ((_t: string, _s: string, q: BackfillQuery = {}) => {
		asked.push(q);
		return new Promise<BackfillResult>((resolve, reject) => {
			pending.push(() => {
				if (fail) return reject(new Error('history answered 500'));
				const at = q.from!;
				const updates =
					at % 10 === 0 && q.to === at
						? [
								{
									kind: 'gex' as const,
									group: 'g',
									ticker: 'SPX',
									timestamp: at,
									value: chainAt(at)
								}
							]
						: [];
				resolve({ id: 0, ok: true, updates, corrupt: 0, bytes: 0, fetchMs: 0, decodeMs: 0 });
			});
		});
	}) as typeof fetchBackfill;
	return {
		read,
		asked,
		/** Answers the oldest read asked. */
		answer: async () => {
			pending.shift()?.();
			await new Promise((r) => setTimeout(r, 0));
		},
		failNext: () => (fail = true)
	};
}

function readerOf(s: ReturnType<typeof server>, first?: MomentReaderOptions['first']) {
	const shown: [number, ColumnarGex | undefined][] = [];
	const errors: string[] = [];
	const reader = new MomentReader({
		ticker: 'SPX',
		stream: 'classic_gex_full',
		day: '2026-01-01',
		read: s.read,
		first,
		onchain: (at, chain) => shown.push([at, chain]),
		onerror: (_at, err) => errors.push(err.message)
	});
	return { reader, shown, errors };
}

describe('MomentReader', () => {
	it("takes the moment that came another way (the page's JSON) and never reads it", async () => {
		const s = server();
		const json = { at: T0 + 50, chain: chainAt(T0 + 50) };
		const { reader, shown } = readerOf(s, Promise.resolve(json));
		reader.want(T0 + 50);
		await new Promise((r) => setTimeout(r, 0));
		expect(shown).toEqual([[T0 + 50, json.chain]]);
		expect(s.asked).toEqual([]);
		expect(reader.reads).toBe(0);
		// Another moment is read as before; the first one again is still not.
		reader.want(T0 + 10);
		await s.answer();
		reader.want(T0 + 50);
		expect(s.asked).toEqual([{ day: '2026-01-01', from: T0 + 10, to: T0 + 10 }]);
		expect(shown.at(-1)).toEqual([T0 + 50, json.chain]);
	});

	it('reads the moment itself when the other way brought nothing or failed', async () => {
		// Made one at a time: a rejection made before its reader exists is nobody's yet.
		for (const first of [
			() => Promise.resolve(undefined),
			() => Promise.reject(new Error('404'))
		]) {
			const s = server();
			const { reader, shown } = readerOf(s, first());
			reader.want(T0 + 50);
			await new Promise((r) => setTimeout(r, 0));
			await s.answer();
			expect(s.asked).toEqual([{ day: '2026-01-01', from: T0 + 50, to: T0 + 50 }]);
			expect(shown.map(([at, c]) => [at, c?.timestamp])).toEqual([[T0 + 50, T0 + 50]]);
		}
	});

	it('reads one record at the moment, by day, from and to', async () => {
		const s = server();
		const { reader, shown } = readerOf(s);
		reader.want(T0 + 20);
		await s.answer();
		expect(s.asked).toEqual([{ day: '2026-01-01', from: T0 + 20, to: T0 + 20 }]);
		expect(shown.map(([at, c]) => [at, c?.timestamp])).toEqual([[T0 + 20, T0 + 20]]);
	});

	it('reads one moment at a time and the newest wanted next, skipping those passed over', async () => {
		const s = server();
		const { reader, shown } = readerOf(s);
		reader.want(T0);
		// A drag passes 10, 20 and 30 while the first read is out: only 30 is read after it.
		reader.want(T0 + 10);
		reader.want(T0 + 20);
		reader.want(T0 + 30);
		expect(s.asked).toHaveLength(1);
		await s.answer();
		await s.answer();
		expect(s.asked.map((q) => q.from! - T0)).toEqual([0, 30]);
		expect(shown.map(([at]) => at - T0)).toEqual([0, 30]);
		expect(reader.reads).toBe(2);
	});

	it('shows a moment read before from its cache, without asking again', async () => {
		const s = server();
		const { reader, shown } = readerOf(s);
		reader.want(T0 + 40);
		await s.answer();
		reader.want(T0 + 50);
		await s.answer();
		reader.want(T0 + 40);
		expect(s.asked).toHaveLength(2);
		expect(shown.map(([at, c]) => [at - T0, c!.timestamp - T0])).toEqual([
			[40, 40],
			[50, 50],
			[40, 40]
		]);
	});

	it('reads a moment wanted again while its read is out once', async () => {
		const s = server();
		const { reader, shown } = readerOf(s);
		reader.want(T0 + 20);
		reader.want(T0 + 20);
		await s.answer();
		await s.answer();
		expect(s.asked).toHaveLength(1);
		expect(shown.map(([at]) => at - T0)).toEqual([20, 20]);
	});

	it('keeps at most MOMENT_CACHE chains', async () => {
		const s = server();
		const { reader } = readerOf(s);
		for (let i = 0; i <= MOMENT_CACHE; i++) {
			reader.want(T0 + i * 10);
			await s.answer();
		}
		// The oldest was dropped: asked again; the newest is still held.
		reader.want(T0 + MOMENT_CACHE * 10);
		reader.want(T0);
		expect(s.asked).toHaveLength(MOMENT_CACHE + 2);
	});

	it('says when nothing was recorded at the moment or the read failed, and stops when closed', async () => {
		const s = server();
		const { reader, shown, errors } = readerOf(s);
		reader.want(T0 + 5);
		await s.answer();
		expect(shown).toEqual([[T0 + 5, undefined]]);
		s.failNext();
		reader.want(T0 + 60);
		await s.answer();
		expect(errors).toEqual(['history answered 500']);
		reader.close();
		reader.want(T0 + 5);
		reader.want(T0 + 70);
		expect(shown).toHaveLength(1);
		expect(s.asked).toHaveLength(2);
	});
});
