import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HistoryUnavailableError } from '../source';
import { DAY_CATEGORIES, MANIFEST, dayFileName, writeTickerDay } from './tickerDayFiles';
import { DAY_PARTS, writeTickerDayInProcesses } from './tickerDayProcesses';

const scratch = mkdtempSync(join(tmpdir(), 'gexdeck-day-processes-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a ticker-day written by two processes', () => {
	it('splits the categories between the parts, each exactly once', () => {
		const all = DAY_PARTS.flat();
		expect([...all].sort()).toEqual([...DAY_CATEGORIES].sort());
		expect(new Set(all).size).toBe(all.length);
	});

	it('writes the same files and manifest as one process, byte for byte', async () => {
		const options = { seed: 3, ticker: 'HYG', date: '2026-11-18', endTick: 23_400 };
		const rss: number[] = [];
		const split = await writeTickerDayInProcesses(
			{ ...options, dir: join(scratch, 'split') },
			{ processes: 2, onChildRss: (b) => rss.push(b) }
		);
		const one = await writeTickerDay({ ...options, dir: join(scratch, 'one') });
		expect(JSON.stringify(split)).toBe(JSON.stringify(one));
		expect(
			readFileSync(join(scratch, 'split', MANIFEST)).equals(
				readFileSync(join(scratch, 'one', MANIFEST))
			)
		).toBe(true);
		for (const c of DAY_CATEGORIES) {
			const a = readFileSync(join(scratch, 'split', dayFileName(c)));
			expect(a.equals(readFileSync(join(scratch, 'one', dayFileName(c)))), c).toBe(true);
		}
		expect(rss).toHaveLength(2);
		for (const b of rss) expect(b).toBeGreaterThan(10e6);
	}, 240_000);

	it('fails as a whole when a part fails: a clear error, no manifest, no temporary files', async () => {
		const dir = join(scratch, 'broken');
		const err = await writeTickerDayInProcesses(
			{ seed: 3, ticker: 'NOT_A_TICKER', date: '2026-11-18', endTick: 23_400, dir },
			{ processes: 2 }
		).catch((e: unknown) => e);
		expect(err).toBeInstanceOf(HistoryUnavailableError);
		expect((err as Error).message).toMatch(/Unknown ticker NOT_A_TICKER/);
		expect(existsSync(join(dir, MANIFEST))).toBe(false);
		expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
	}, 120_000);
});
