/**
 * One process's share of a ticker-day (see ./tickerDayProcesses.ts, which spawns it): simulates
 * the whole day, writes the files of its day keys, and reports on stdout as JSON lines: progress
 * now and then, then its result (records, members, peak RSS). A failure ends it with exit code 1
 * and a last stderr line `<errno code or error name>: <message>`.
 *
 * Usage: node tickerDayPart.js '<json: WriteDayOptions and keys>'
 */
import { HistoryUnavailableError } from '../source';
import type { DayKey } from './dayKeys';
import { writeDayCategories, type WriteDayOptions } from './tickerDayFiles';

async function part(json: string): Promise<void> {
	const { keys, ...options } = JSON.parse(json) as WriteDayOptions & { keys: DayKey[] };
	let last = 0;
	const { records, members } = await writeDayCategories(
		{
			...options,
			onProgress: (f) => {
				if (f - last < 0.01) return;
				last = f;
				process.stdout.write(`${JSON.stringify({ progress: f })}\n`);
			}
		},
		keys
	);
	const maxRssBytes = process.resourceUsage().maxRSS * 1024;
	process.stdout.write(`${JSON.stringify({ records, members, maxRssBytes })}\n`);
}

const json = process.argv[2];
if (!json) {
	process.stderr.write('Error: usage: tickerDayPart <json options>\n');
	process.exit(2);
}
// A part whose service went away stops: its pipe breaks, or it is handed to another parent.
const parent = process.ppid;
process.stdout.on('error', () => process.exit(1));
setInterval(() => {
	if (process.ppid !== parent) process.exit(1);
}, 1000).unref();
part(json).catch((err: unknown) => {
	const e = err as NodeJS.ErrnoException;
	const kind =
		err instanceof HistoryUnavailableError ? 'HistoryUnavailableError' : (e.code ?? e.name);
	// The parent reads this one line as the part's error (kind: message), not as a log line.
	process.stderr.write(`${err instanceof Error ? `${kind}: ${e.message}` : String(err)}\n`);
	process.exitCode = 1;
});
