import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { HistoryUnavailableError } from '../source';
import { dayKeysOf } from './dayKeys';
import { MANIFEST, dayFileName, writeTickerDay } from './tickerDayFiles';
import {
	DAY_PARTS,
	dayParts,
	PART_HEAP_FLAG,
	partCommand,
	writeTickerDayInProcesses
} from './tickerDayProcesses';

const scratch = mkdtempSync(join(tmpdir(), 'gexdeck-day-processes-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a ticker-day written by two processes', () => {
	it('splits the day keys between the parts, each exactly once, in either profile', () => {
		const all = DAY_PARTS.flat();
		expect([...all].sort()).toEqual([...dayKeysOf('observed')].sort());
		expect(new Set(all).size).toBe(all.length);
		const documented = dayParts('documented', 2).flat();
		expect(documented.sort()).toEqual([...dayKeysOf('documented')].sort());
		expect(dayParts('observed', 1)).toEqual([[...dayKeysOf('observed')]]);
	});

	it('runs the TypeScript child from sources and the compiled one beside a build', () => {
		// Both with the part's young-generation cap (PART_HEAP_FLAG) first.
		const source = partCommand();
		expect(source.args.slice(0, 3)).toEqual([PART_HEAP_FLAG, '--import', 'tsx']);
		expect(source.args[3]).toMatch(/tickerDayPart\.ts$/);
		const built = mkdtempSync(join(scratch, 'build-'));
		writeFileSync(join(built, 'tickerDayPart.js'), '');
		const compiled = partCommand(pathToFileURL(join(built, 'main.js')).href);
		expect(compiled.args).toEqual([PART_HEAP_FLAG, join(built, 'tickerDayPart.js')]);
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
		for (const c of dayKeysOf('observed')) {
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
