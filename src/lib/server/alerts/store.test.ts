/**
 * The alert rules and webhooks in the database, on both engines: what one service saves another
 * reads (and a running one picks up), a stored row that no longer parses is named and left out
 * while the others work, a deleted webhook leaves the rules that named it, the import takes a
 * whole file or nothing (naming each bad entry, with a size and a count limit) and reads the
 * export back, and an older release's alerts.json and alerts-firings.json are imported once and
 * kept as backups.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { useDatabases } from '../../../../tests/support/databases';
import { openDatabase, type Database, type DatabaseTarget } from '../db/index';
import { openRecords } from '../db/legacyImport';
import { FeedHolder } from '../feeds';
import { setLogSink } from '../log';
import { UpdateTap } from '../updates/tap';
import { IMPORT_MAX_BYTES, MAX_RULES } from './alertsFile';
import type { AlertRule, Webhook } from '../../alerts/rules';
import { AlertService, NOT_FOUND } from './service';

const engines = useDatabases();
const lines: string[] = [];
const previousSink = setLogSink({ out: (l) => lines.push(l), err: (l) => lines.push(l) });
afterAll(() => void setLogSink(previousSink));

const open: { close(): unknown }[] = [];
afterEach(async () => {
	for (const o of open.splice(0).reverse()) await o.close();
	lines.length = 0;
});

const good = { id: 'good', ticker: 'SPX', kind: 'cross', level: 'zero_gamma' };
const bad = { id: 'bad', ticker: 'SPX', kind: 'cross', level: 'price', price: 'abc' };

async function database(target: DatabaseTarget): Promise<Database> {
	const db = await openDatabase(target);
	open.push(db);
	return db;
}

/** A started service on `db` whose feeds hold nothing (no relay, no proxy). */
async function service(db: Database, watch = false): Promise<AlertService> {
	const holder = new FeedHolder({
		tap: new UpdateTap(),
		account: async () => ({ streams: false })
	});
	const s = await new AlertService({
		db,
		feeds: holder.client('alerts'),
		watch,
		// Public names pinned to a public address (no DNS in tests); a post is answered here.
		sender: {
			resolve: async () => [{ address: '93.184.215.14', family: 4 }],
			post: async () => 204
		}
	}).start();
	open.push(holder, s);
	return s;
}

function until(ok: () => boolean, ms = 8000): Promise<void> {
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

describe.each(engines)('alert rules in the database on $engine', ({ target }) => {
	it('keeps what one service saves for the next, and a running one picks it up', async () => {
		const t = await target();
		const a = await service(await database(t));
		const watching = await service(await database(t), true);
		expect((await a.saveWebhook({ id: 'desk', url: 'https://hooks.example.com/x' })).ok).toBe(true);
		expect((await a.saveRule({ ...good, webhooks: ['desk'] })).ok).toBe(true);
		const b = await service(await database(t));
		expect(b.rules().map((v) => [v.rule.id, v.rule.webhooks])).toEqual([['good', ['desk']]]);
		expect(b.webhooks().map((w) => w.webhook.url)).toEqual(['https://hooks.example.com/x']);
		// The one that was running when the rule was saved reads it within its reload period.
		await until(() => watching.rules().length === 1);
		const db = await database(t);
		expect(await db.all(`SELECT id, owner FROM alert_rules`)).toEqual([{ id: 'good', owner: '' }]);
	});

	it('names a stored row that does not parse and leaves it out; the others keep working', async () => {
		const t = await target();
		const db = await database(t);
		await db.run(`INSERT INTO alert_rules (id, owner, position, body) VALUES (?, '', 1, ?)`, [
			'bad',
			JSON.stringify(bad)
		]);
		await db.run(`INSERT INTO alert_rules (id, owner, position, body) VALUES (?, '', 2, ?)`, [
			'good',
			JSON.stringify(good)
		]);
		const s = await service(db);
		expect(s.rules().map((v) => v.rule.id)).toEqual(['good']);
		expect(s.state.errors).toEqual([
			{ entry: 'rule', id: 'bad', index: 0, error: expect.stringMatching(/price/) }
		]);
		// Kept as stored (nothing is lost to a parser that changed).
		expect(await db.get(`SELECT body FROM alert_rules WHERE id = 'bad'`)).toEqual({
			body: JSON.stringify(bad)
		});
	});

	it('deletes a webhook from the rules that named it', async () => {
		const s = await service(await database(await target()));
		await s.saveWebhook({ id: 'w1', url: 'https://one.example/h' });
		await s.saveWebhook({ id: 'w2', url: 'https://two.example/h' });
		await s.saveRule({ ...good, webhooks: ['w1', 'w2'] });
		expect(await s.deleteWebhook('w1')).toBe(true);
		expect(await s.deleteWebhook('w1')).toBe(false);
		expect(s.rules()[0].rule.webhooks).toEqual(['w2']);
		expect(await s.deleteRule('good')).toBe(true);
		expect(s.rules()).toEqual([]);
	});

	it('imports a whole file or nothing, naming each bad entry, and reads its export back', async () => {
		const t = await target();
		const s = await service(await database(t));
		await s.saveRule({ ...good, name: 'kept' });
		const before = JSON.stringify(s.exportFile());

		const refused = async (text: string) => {
			const r = await s.importFile(text);
			expect(JSON.stringify(s.exportFile())).toBe(before);
			return r.ok ? [] : r.errors;
		};
		const file = (rules: unknown[], webhooks: unknown[] = []) =>
			JSON.stringify({ version: 1, rules, webhooks });
		expect(await refused(file([{ ...good, name: 'changed' }, bad]))).toEqual([
			expect.stringMatching(/^rule bad \(#2\): .*price/)
		]);
		expect(await refused('{"rules": [')).toEqual([expect.stringMatching(/^not valid JSON/)]);
		expect(await refused(file([{ ...good, webhooks: ['nope'] }]))).toEqual([
			'rule good (#1): webhooks: no webhook with id nope'
		]);
		const many = Array.from({ length: MAX_RULES + 1 }, (_, i) => ({ ...good, id: `r${i}` }));
		expect(await refused(file(many))).toEqual([
			`${MAX_RULES + 1} rules; an import holds at most ${MAX_RULES}`
		]);
		const big = file([{ ...good, name: 'x'.repeat(IMPORT_MAX_BYTES) }]);
		expect(await refused(big)).toEqual([expect.stringMatching(/bytes; an import holds at most/)]);

		// A good file adds and replaces by id; what is not in it stays.
		const r = await s.importFile(
			file(
				[
					{ ...good, name: 'replaced' },
					{ id: 'new', ticker: 'NDX', kind: 'gex_sign', webhooks: ['h'] }
				],
				[{ id: 'h', url: 'https://h.example/x' }]
			)
		);
		expect(r).toEqual({ ok: true, rules: 2, webhooks: 1 });
		const exported = JSON.stringify(s.exportFile());
		expect(s.rules().map((v) => [v.rule.id, v.rule.name])).toEqual([
			['good', 'replaced'],
			['new', '']
		]);
		// The export, imported into another database, gives the same rules.
		const other = await service(await database(await target()));
		expect(await other.importFile(exported)).toMatchObject({ ok: true, rules: 2, webhooks: 1 });
		expect(JSON.stringify(other.exportFile())).toBe(exported);
	});

	it('gives each user their own: a trader sees and changes only theirs, an admin all', async () => {
		const s = await service(await database(await target()));
		const ann = { id: 'u-ann', role: 'trader' };
		const ben = { id: 'u-ben', role: 'trader' };
		const admin = { id: 'u-adm', role: 'admin' };
		expect((await s.saveWebhook({ id: 'h', url: 'https://h.example/x' }, undefined, ann)).ok).toBe(
			true
		);
		expect((await s.saveRule({ ...good, webhooks: ['h'] }, undefined, ann)).ok).toBe(true);
		// Ben may not name Ann's webhook, nor change, test or delete her rule: as if none existed.
		expect(await s.saveRule({ ...good, id: 'b1', webhooks: ['h'] }, undefined, ben)).toEqual({
			ok: false,
			error: 'webhooks: no webhook with id h'
		});
		expect(await s.saveRule({ ...good, name: 'mine now' }, undefined, ben)).toEqual({
			ok: false,
			error: NOT_FOUND
		});
		expect(await s.setRulePaused('good', true, ben)).toBe(false);
		expect(await s.testRule('good', ben)).toBeUndefined();
		expect(await s.deleteRule('good', ben)).toBe(false);
		expect(await s.deleteWebhook('h', ben)).toBe(false);
		expect(s.rules(ben)).toEqual([]);
		expect(s.webhooks(ben)).toEqual([]);
		expect(s.exportFile(ben)).toMatchObject({ rules: [], webhooks: [] });
		// Ben's import of the same ids makes his own copies under new ids; Ann's stay as they were.
		expect(await s.importFile(JSON.stringify(s.exportFile(ann)), ben)).toMatchObject({ ok: true });
		const his = s.exportFile(ben) as { rules: AlertRule[]; webhooks: Webhook[] };
		expect(his.rules.map((r) => r.id)).not.toContain('good');
		expect(his.rules[0].webhooks).toEqual([his.webhooks[0].id]);
		expect(s.rules(ann).map((v) => [v.rule.id, v.owner])).toEqual([['good', 'u-ann']]);
		// Firings: each sees their own; an admin sees all and may change Ann's rule.
		await s.testRule('good', ann);
		await s.testRule(his.rules[0].id, ben);
		expect((await s.firings(ann)).map((f) => f.ruleId)).toEqual(['good']);
		expect((await s.firings(admin)).length).toBe(2);
		expect(
			s
				.rules(admin)
				.map((v) => v.owner)
				.sort()
		).toEqual(['u-ann', 'u-ben']);
		expect(await s.setRulePaused('good', true, admin)).toBe(true);
		expect(s.rules(ann)[0]).toMatchObject({ owner: 'u-ann', rule: { paused: true } });
	});

	it("imports an older release's alerts.json and alerts-firings.json once, keeping them", async () => {
		const t = await target();
		const rules = {
			version: 1,
			publicUrl: 'https://deck.example',
			rules: [good, bad],
			webhooks: []
		};
		const firing = {
			type: 'gexdeck.alert',
			id: 'f1',
			ruleId: 'good',
			at: 1763650800,
			firedAt: 1763650801000,
			test: false
		};
		writeFileSync(join(t.dataDir, 'alerts.json'), JSON.stringify(rules));
		writeFileSync(join(t.dataDir, 'alerts-firings.json'), JSON.stringify([firing]));
		const db = await openRecords(t);
		open.push(db);
		expect(lines.join('\n')).toMatch(/alerts\.json: rule bad \(#2\): .*not imported/);
		const s = await service(db);
		expect(s.rules().map((v) => v.rule.id)).toEqual(['good']);
		expect(s.state.publicUrl).toBe('https://deck.example');
		expect(await s.firings()).toEqual([firing]);
		expect(s.rules()[0].lastFiredAt).toBe(1763650800 * 1000);
		for (const name of ['alerts.json', 'alerts-firings.json']) {
			expect(existsSync(join(t.dataDir, name))).toBe(false);
			expect(readFileSync(join(t.dataDir, `${name}.imported`), 'utf8')).toContain('good');
		}
	});
});
