/**
 * Retention by bytes at a realistic cap over several recorded days (the README's "at most
 * maxBytes in total, whichever of days and bytes is reached first; the day being written is
 * never removed"): exactly the oldest days that bring the total under the cap go, no more.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spxChain } from '../../wire/arbitraries.test-support';
import { encodeFrame, initWireEncoder } from '../../wire/encode';
import { UpdateTap } from '../updates/tap';
import { SessionRecorder } from './sessionRecorder';

const OPEN = 1795446000; // 2026-11-23 09:30 ET
const DAY = 86_400;
let dir: string;
let tap: UpdateTap;
let recorder: SessionRecorder;

beforeAll(() => initWireEncoder());
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'gexdeck-retention-'));
	tap = new UpdateTap();
	recorder = new SessionRecorder({ root: dir });
	recorder.attach(tap);
});
afterEach(() => {
	recorder.close();
	rmSync(dir, { recursive: true, force: true });
});

/** One session's worth of frames of two streams on day `d` after OPEN's. */
function recordDay(d: number, frames = 240): void {
	for (let s = 0; s < frames; s++) {
		const ts = OPEN + d * DAY + s * 60;
		for (const group of ['SPX_classic_gex_full', 'SPX_classic_gex_zero']) {
			const any = encodeFrame('gex', { ...spxChain(60, s % 97), timestamp: ts });
			tap.publish({ source: 'stream', group, receivedAt: Date.now(), any });
		}
	}
}

/** Bytes of one recorded day on disk (records and indexes). */
function bytesOf(day: string): number {
	let n = 0;
	for (const ticker of readdirSync(join(dir, day))) {
		for (const f of readdirSync(join(dir, day, ticker)))
			n += statSync(join(dir, day, ticker, f)).size;
	}
	return n;
}

describe('SessionRecorder retention by bytes', () => {
	it('removes only the oldest days needed to get under a cap of several days', () => {
		for (let d = 0; d < 6; d++) recordDay(d);
		const days = recorder.days();
		expect(days).toHaveLength(6);
		const sizes = days.map(bytesOf);
		// Realistic: each day is hundreds of KB, the cap several of them.
		expect(Math.min(...sizes)).toBeGreaterThan(100_000);
		// Room for the newest three past days, the day being written and half a day more.
		const cap = sizes.slice(2).reduce((a, b) => a + b, 0) + sizes[0] / 2;
		const removed = recorder.retain({ retentionDays: 20, maxBytes: cap });
		expect(removed).toEqual(days.slice(0, 2));
		expect(recorder.days()).toEqual(days.slice(2));
		expect(recorder.diskUsage().bytes).toBeLessThanOrEqual(cap);

		// A new day is recorded in full: the next enforcement (at the next day change, or any
		// other moment) removes the oldest day only, never the one being written.
		recordDay(6);
		expect(recorder.enforceRetention()).toEqual([days[2]]);
		expect(recorder.days()).toEqual([...days.slice(3), '2026-11-29']);
	});

	it('a cap above the total removes nothing; the day count still applies', () => {
		for (let d = 0; d < 4; d++) recordDay(d, 60);
		const days = recorder.days();
		const total = recorder.diskUsage().bytes;
		expect(recorder.retain({ retentionDays: 20, maxBytes: total })).toEqual([]);
		expect(recorder.retain({ retentionDays: 3, maxBytes: total })).toEqual([days[0]]);
		expect(recorder.days()).toEqual(days.slice(1));
	});

	it('never removes the day being written, even over the cap, and logs what it removes', () => {
		recorder.close();
		const log: string[] = [];
		recorder = new SessionRecorder({ root: dir, log: (m) => log.push(m) });
		recorder.attach(tap);
		for (let d = 0; d < 3; d++) recordDay(d, 30);
		const today = recorder.days()[2];
		const records = recorder.count(today, 'SPX', 'classic_gex_full');
		expect(records).toBe(30);
		expect(recorder.retain({ retentionDays: 20, maxBytes: 5 * 1024 ** 3 })).toEqual([]);
		expect(log).toEqual([]);
		// A cap below today's own size: every past day goes, today's records all stay.
		expect(recorder.retain({ retentionDays: 20, maxBytes: 1 })).toEqual([
			'2026-11-23',
			'2026-11-24'
		]);
		expect(recorder.count(today, 'SPX', 'classic_gex_full')).toBe(records);
		expect(log).toEqual(['recorder: retention removed 2026-11-23, 2026-11-24']);
	});
});
