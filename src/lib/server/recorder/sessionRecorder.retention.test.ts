/**
 * Retention by bytes at a realistic cap over several recorded days (the README's "at most
 * maxBytes in total, whichever of days and bytes is reached first; the day being written is
 * never removed"): exactly the oldest days that bring the total under the cap go, no more; and
 * a removed day's open files are closed (their descriptors would keep the deleted bytes on disk),
 * only those.
 */
import { readdirSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spxChain } from '../../wire/arbitraries.test-support';
import { encodeFrame } from '../../wire/encode';
import { recorderRig } from './sessionRecorder.test-support';

const OPEN = 1795446000; // 2026-11-23 09:30 ET
const DAY = 86_400;
const rig = recorderRig('gexdeck-retention-');

/** One session's worth of frames of two streams on day `d` after OPEN's. */
function recordDay(d: number, frames = 240): void {
	for (let s = 0; s < frames; s++) {
		const ts = OPEN + d * DAY + s * 60;
		for (const group of ['SPX_classic_gex_full', 'SPX_classic_gex_zero']) {
			const any = encodeFrame('gex', { ...spxChain(60, s % 97), timestamp: ts });
			rig.tap.publish({ source: 'stream', group, receivedAt: Date.now(), any });
		}
	}
}

/** Descriptors this process holds on files of `day` under the rig's folder. */
function openFilesOf(day: string): number {
	return readdirSync('/proc/self/fd').filter((fd) => {
		try {
			return readlinkSync(`/proc/self/fd/${fd}`).startsWith(join(rig.dir, day));
		} catch {
			return false; // closed meanwhile (the listing's own descriptor)
		}
	}).length;
}

/** Bytes of one recorded day on disk (records and indexes). */
function bytesOf(day: string): number {
	let n = 0;
	for (const ticker of readdirSync(join(rig.dir, day))) {
		for (const f of readdirSync(join(rig.dir, day, ticker)))
			n += statSync(join(rig.dir, day, ticker, f)).size;
	}
	return n;
}

describe('SessionRecorder retention by bytes', () => {
	it('removes only the oldest days needed to get under a cap of several days', () => {
		for (let d = 0; d < 6; d++) recordDay(d);
		const days = rig.recorder.days();
		expect(days).toHaveLength(6);
		const sizes = days.map(bytesOf);
		// Realistic: each day is hundreds of KB, the cap several of them.
		expect(Math.min(...sizes)).toBeGreaterThan(100_000);
		// Room for the newest three past days, the day being written and half a day more.
		const cap = sizes.slice(2).reduce((a, b) => a + b, 0) + sizes[0] / 2;
		const removed = rig.recorder.retain({ retentionDays: 20, maxBytes: cap });
		expect(removed).toEqual(days.slice(0, 2));
		expect(rig.recorder.days()).toEqual(days.slice(2));
		expect(rig.recorder.diskUsage().bytes).toBeLessThanOrEqual(cap);

		// A new day is recorded in full: the next enforcement (at the next day change, or any
		// other moment) removes the oldest day only, never the one being written.
		recordDay(6);
		expect(rig.recorder.enforceRetention()).toEqual([days[2]]);
		expect(rig.recorder.days()).toEqual([...days.slice(3), '2026-11-29']);
	});

	it('a cap above the total removes nothing; the day count still applies', () => {
		for (let d = 0; d < 4; d++) recordDay(d, 60);
		const days = rig.recorder.days();
		const total = rig.recorder.diskUsage().bytes;
		expect(rig.recorder.retain({ retentionDays: 20, maxBytes: total })).toEqual([]);
		expect(rig.recorder.retain({ retentionDays: 3, maxBytes: total })).toEqual([days[0]]);
		expect(rig.recorder.days()).toEqual(days.slice(1));
	});

	it('never removes the day being written, even over the cap, and logs what it removes', () => {
		const log: string[] = [];
		rig.reopen({ log: (m) => log.push(m) });
		for (let d = 0; d < 3; d++) recordDay(d, 30);
		const today = rig.recorder.days()[2];
		const records = rig.recorder.count(today, 'SPX', 'classic_gex_full');
		expect(records).toBe(30);
		expect(rig.recorder.retain({ retentionDays: 20, maxBytes: 5 * 1024 ** 3 })).toEqual([]);
		expect(log).toEqual([]);
		// A cap below today's own size: every past day goes, today's records all stay.
		expect(rig.recorder.retain({ retentionDays: 20, maxBytes: 1 })).toEqual([
			'2026-11-23',
			'2026-11-24'
		]);
		expect(rig.recorder.count(today, 'SPX', 'classic_gex_full')).toBe(records);
		expect(log).toEqual(['recorder: retention removed 2026-11-23, 2026-11-24']);
	});

	it("closes a removed day's open files, and only those", () => {
		for (let d = 0; d < 3; d++) recordDay(d, 20);
		const [oldest, middle, today] = rig.recorder.days();
		// A past day read by a viewer keeps its files open until they idle out.
		expect(rig.recorder.read(oldest, 'SPX', 'classic_gex_full')).toHaveLength(20);
		expect(rig.recorder.read(middle, 'SPX', 'classic_gex_full')).toHaveLength(20);
		expect(openFilesOf(oldest)).toBeGreaterThan(0);
		const todayOpen = openFilesOf(today);
		expect(todayOpen).toBeGreaterThan(0);
		expect(rig.recorder.retain({ retentionDays: 2, maxBytes: 5 * 1024 ** 3 })).toEqual([oldest]);
		expect(openFilesOf(oldest)).toBe(0);
		expect(openFilesOf(middle)).toBeGreaterThan(0);
		expect(openFilesOf(today)).toBe(todayOpen);
	});
});
