/**
 * alerts.json on a real file system: hand edits are picked up by the watcher, a bad rule is
 * logged by name and left out while the others keep working, a file that is not JSON keeps the
 * last good rules, and page edits keep bad entries as they were written.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FeedHolder } from '../feeds';
import { UpdateTap } from '../updates/tap';
import { AlertService } from './service';
import { AlertStore } from './store';

let dir: string;
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'gexdeck-alerts-store-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const good = { id: 'good', ticker: 'SPX', kind: 'cross', level: 'zero_gamma' };
const bad = { id: 'bad', ticker: 'SPX', kind: 'cross', level: 'price', price: 'abc' };

/** A feed client of a holder with no relay and no proxy: rules hold nothing. */
function offlineFeeds() {
	return new FeedHolder({ tap: new UpdateTap(), account: async () => ({ streams: false }) }).client(
		'alerts'
	);
}

function until(ok: () => boolean, ms = 5000): Promise<void> {
	const deadline = Date.now() + ms;
	return new Promise((resolve, reject) => {
		const check = () => {
			if (ok()) resolve();
			else if (Date.now() > deadline) reject(new Error('timed out'));
			else setTimeout(check, 20);
		};
		check();
	});
}

describe('AlertStore', () => {
	it('logs a bad rule by name; the others keep working', () => {
		const path = join(dir, 'alerts.json');
		writeFileSync(path, JSON.stringify({ version: 1, rules: [good, bad, { ticker: 'NOPE' }] }));
		const logs: string[] = [];
		const store = new AlertStore(path, (m) => logs.push(m));
		expect(store.state.rules.map((r) => r.id)).toEqual(['good']);
		expect(logs).toEqual([
			`alerts: ${path}: rule bad (#2): price must be a number, got "abc"; the other rules keep working`,
			`alerts: ${path}: rule (no id) (#3): id is missing; the other rules keep working`
		]);
	});

	it('a file that is not JSON keeps the last good rules', () => {
		const path = join(dir, 'alerts.json');
		writeFileSync(path, JSON.stringify({ version: 1, rules: [good] }));
		const logs: string[] = [];
		const store = new AlertStore(path, (m) => logs.push(m));
		writeFileSync(path, '{ "rules": [');
		expect(store.reload()).toBe(true);
		expect(store.state.rules.map((r) => r.id)).toEqual(['good']);
		expect(store.state.errors[0].error).toContain('not valid JSON');
		expect(logs.at(-1)).toContain('the previous rules stay in effect');
	});

	it('page edits keep a bad hand-written entry as written', () => {
		const path = join(dir, 'alerts.json');
		writeFileSync(path, JSON.stringify({ version: 1, rules: [bad] }));
		const store = new AlertStore(path);
		store.update((f) => f.rules.push(good));
		const saved = JSON.parse(readFileSync(path, 'utf8')) as { rules: unknown[] };
		expect(saved.rules).toEqual([bad, good]);
		expect(store.state.rules.map((r) => r.id)).toEqual(['good']);
	});

	it('a page edit right after a hand edit builds on the hand edit', () => {
		const path = join(dir, 'alerts.json');
		writeFileSync(path, JSON.stringify({ version: 1, rules: [good] }));
		const store = new AlertStore(path);
		// Not yet seen by any watcher.
		writeFileSync(path, JSON.stringify({ version: 1, rules: [] }));
		store.update((f) => f.webhooks.push({ id: 'w', url: 'https://example.com/' }));
		const saved = JSON.parse(readFileSync(path, 'utf8')) as { rules: unknown[] };
		expect(saved.rules).toEqual([]);
	});
});

describe('AlertService and the file on disk', () => {
	it('re-reads a hand edit and applies it to the engine', async () => {
		const logs: string[] = [];
		const service = new AlertService({
			dataDir: dir,
			feeds: offlineFeeds(),
			log: (m) => logs.push(m)
		}).start();
		try {
			expect(service.engine.wants('SPX', 'spot')).toBe(false);
			writeFileSync(join(dir, 'alerts.json'), JSON.stringify({ version: 1, rules: [good, bad] }));
			await until(() => service.engine.wants('SPX', 'spot'));
			expect(service.rules().map((r) => r.rule.id)).toEqual(['good']);
			expect(logs.some((l) => l.includes('rule bad (#2)'))).toBe(true);
		} finally {
			service.close();
		}
	});

	it('refuses a bad rule from the page with the reason, and keeps the file', () => {
		const service = new AlertService({ dataDir: dir, feeds: offlineFeeds(), watch: false }).start();
		try {
			expect(
				service.saveRule({ ticker: 'SPX', kind: 'cross', level: 'price', price: 'x' })
			).toEqual({
				ok: false,
				error: 'price must be a number, got "x"'
			});
			expect(service.saveRule({ ...good, webhooks: ['nope'] })).toEqual({
				ok: false,
				error: 'webhooks: no webhook with id nope'
			});
			expect(service.rules()).toEqual([]);
		} finally {
			service.close();
		}
	});
});
