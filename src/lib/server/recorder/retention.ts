/**
 * Which recorded days retention removes: the oldest first, until at most `keepDays` days and
 * `maxBytes` bytes are left, passing over the days it must keep (the day being written, a day
 * just imported for a viewer waiting on it). Pure, so the byte arithmetic is tested on its own;
 * the recorder measures the days (daySizes) and deletes what this returns.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface DaySize {
	day: string;
	bytes: number;
	files?: number;
}

export interface RetentionLimits {
	keepDays: number;
	maxBytes: number;
}

/**
 * Days to remove, oldest first. `days` is every recorded day, oldest first; `extraDays` counts
 * days about to be written that have no folder yet. A kept day still counts toward both limits,
 * so a cap the kept days alone exceed removes every other day.
 */
export function daysToRemove(
	days: readonly DaySize[],
	limits: RetentionLimits,
	keep: ReadonlySet<string>,
	extraDays = 0
): string[] {
	let total = 0;
	for (const d of days) total += d.bytes;
	let remaining = days.length + extraDays;
	const removed: string[] = [];
	for (const d of days) {
		if (remaining <= limits.keepDays && total <= limits.maxBytes) break;
		if (keep.has(d.day)) continue;
		removed.push(d.day);
		total -= d.bytes;
		remaining--;
	}
	return removed;
}

/** Bytes and files on disk of each day folder under `root` (every file of every ticker). */
export function daySizes(root: string, days: readonly string[]): Required<DaySize>[] {
	return days.map((day) => {
		let bytes = 0;
		let count = 0;
		const dayDir = join(root, day);
		for (const ticker of readdirSync(dayDir)) {
			const dir = join(dayDir, ticker);
			let files: string[];
			try {
				files = readdirSync(dir);
			} catch {
				continue; // not a folder
			}
			for (const f of files) bytes += statSync(join(dir, f)).size;
			count += files.length;
		}
		return { day, bytes, files: count };
	});
}

export interface DiskUsage {
	bytes: number;
	days: string[];
	files: number;
}

/** The recording's total on disk: its days, their bytes and files (the Account page, retention). */
export function diskUsageOf(root: string, days: string[]): DiskUsage {
	const sizes = daySizes(root, days);
	return {
		bytes: sizes.reduce((sum, d) => sum + d.bytes, 0),
		days,
		files: sizes.reduce((sum, d) => sum + d.files, 0)
	};
}
