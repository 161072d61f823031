/**
 * Retention's arithmetic on its own: the oldest days go first until both the day count and the
 * byte total are within the limits, the running total drops by each removed day's own size,
 * and a kept day (being written, just imported) is passed over but still counted; and the
 * measure it works on (daySizes): every file of every ticker folder, a stray file beside them
 * passed over.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { daySizes, daysToRemove, diskUsageOf } from './retention';

const MB = 1024 ** 2;
const days = (sizes: number[]) =>
	sizes.map((mb, i) => ({ day: `2026-11-${String(10 + i).padStart(2, '0')}`, bytes: mb * MB }));

describe('daysToRemove', () => {
	it('removes the oldest days until the bytes fit a realistic cap, each by its own size', () => {
		// 40 + 90 + 30 + 50 + 20 = 230 MB under a 100 MB cap: dropping 40, 90 leaves 100.
		const all = days([40, 90, 30, 50, 20]);
		const keepDays = { keepDays: 20, maxBytes: 100 * MB };
		expect(daysToRemove(all, keepDays, new Set())).toEqual(['2026-11-10', '2026-11-11']);
		// One byte less and the third goes too.
		expect(daysToRemove(all, { keepDays: 20, maxBytes: 100 * MB - 1 }, new Set())).toEqual([
			'2026-11-10',
			'2026-11-11',
			'2026-11-12'
		]);
	});

	it('holds the day count, counting a day about to be written', () => {
		const all = days([1, 1, 1, 1]);
		expect(daysToRemove(all, { keepDays: 2, maxBytes: Infinity }, new Set())).toHaveLength(2);
		expect(daysToRemove(all, { keepDays: 2, maxBytes: Infinity }, new Set(), 1)).toHaveLength(3);
	});

	it('passes over kept days, which still count toward the limits', () => {
		const all = days([64, 10, 10, 10]);
		const removed = daysToRemove(all, { keepDays: 1, maxBytes: 64 * MB }, new Set(['2026-11-10']));
		expect(removed).toEqual(['2026-11-11', '2026-11-12', '2026-11-13']);
		expect(
			daysToRemove(all, { keepDays: 20, maxBytes: 1 }, new Set(all.map((d) => d.day)))
		).toEqual([]);
	});
});

describe('daySizes', () => {
	it('adds up the bytes and files of every ticker folder of a day, passing over stray files', () => {
		const root = mkdtempSync(join(tmpdir(), 'gexdeck-daysizes-'));
		try {
			const file = (path: string, bytes: number) => {
				mkdirSync(join(root, path, '..'), { recursive: true });
				writeFileSync(join(root, path), Buffer.alloc(bytes));
			};
			file('2026-11-10/SPX/classic_gex_full.rec', 1000);
			file('2026-11-10/SPX/classic_gex_full.idx', 16);
			file('2026-11-10/NDX/spot.rec', 300);
			file('2026-11-10/notes.txt', 5000); // not a ticker folder
			mkdirSync(join(root, '2026-11-11'));
			expect(daySizes(root, ['2026-11-10', '2026-11-11'])).toEqual([
				{ day: '2026-11-10', bytes: 1316, files: 3 },
				{ day: '2026-11-11', bytes: 0, files: 0 }
			]);
			// The recording's total: every day's bytes and files added up.
			file('2026-11-11/SPX/spot.rec', 84);
			expect(diskUsageOf(root, ['2026-11-10', '2026-11-11'])).toEqual({
				bytes: 1400,
				days: ['2026-11-10', '2026-11-11'],
				files: 4
			});
		} finally {
			rmSync(root, { recursive: true, force: true });
		}
	});
});
