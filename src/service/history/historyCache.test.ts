import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HistoryUnavailableError } from '../source';
import { HISTORY_MODEL_VERSION, HistoryStore, historyCacheFolder } from './historyStore';

const dirs: string[] = [];
afterEach(() => {
	for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function plant(root: string, ...path: string[]): string {
	const dir = join(root, 'history', ...path);
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, 'gex_full.json.gz'), 'x');
	return dir;
}

describe('the history cache folder', () => {
	it('keys cached days by model version and seed, and drops days of other versions', async () => {
		const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-history-cache-'));
		dirs.push(dataDir);
		expect(historyCacheFolder(7)).toBe(`model-${HISTORY_MODEL_VERSION}-seed-7`);
		const legacy = plant(dataDir, '2026-11-18', 'SPX');
		const older = plant(dataDir, `model-${HISTORY_MODEL_VERSION - 1}-seed-7`, '2026-11-18', 'SPX');
		const otherSeed = plant(dataDir, historyCacheFolder(8), '2026-11-18', 'SPX');
		const mine = plant(dataDir, historyCacheFolder(7), '2026-11-18', 'SPX');
		const store = new HistoryStore({
			seed: 7,
			dataDir,
			waitMs: 1000,
			now: () => Date.parse('2026-11-20T15:00:00Z'),
			live: { liveTick: () => undefined }
		});
		await store.init();
		expect(existsSync(legacy)).toBe(false);
		expect(existsSync(older)).toBe(false);
		expect(existsSync(otherSeed)).toBe(true);
		expect(existsSync(mine)).toBe(true);
	});
});

describe('a day that cannot be written', () => {
	it('fails that request with 503 and the errno code, not the folder path; the queue goes on', async () => {
		const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-history-cache-'));
		dirs.push(dataDir);
		const store = new HistoryStore({
			seed: 7,
			dataDir,
			waitMs: 60_000,
			now: () => Date.parse('2026-11-20T15:00:00Z'),
			live: { liveTick: () => undefined }
		});
		await store.init();
		// A file where the day's folder goes: mkdir fails (as it would on a read-only disk).
		mkdirSync(join(store.dayDir('HYG', '2026-11-18'), '..'), { recursive: true });
		writeFileSync(store.dayDir('HYG', '2026-11-18'), 'not a folder');
		const err = await store
			.file('HYG', 'classic', 'gex_full', '2026-11-18')
			.catch((e: unknown) => e);
		expect(err).toBeInstanceOf(HistoryUnavailableError);
		expect((err as HistoryUnavailableError).status).toBe(503);
		expect((err as Error).message).toMatch(/could not be written \(E[A-Z]+\)/);
		expect((err as Error).message).not.toContain(dataDir);
		expect(store.queue.size).toEqual({ running: 0, waiting: 0 });
	});
});
