/**
 * The JSON files of releases before the database (settings.json, ledger.json, tokens.json,
 * recording.json, last-watchlist.json, alerts.json, alerts-firings.json), imported once on
 * the first start with the database: each file is checked as the old release checked it (a
 * corrupt one stops the start, naming it, a copy kept: jsonFile.ts), written into the database in
 * one transaction with a row in `imported_files`, then renamed to `<name>.imported` beside it as
 * the backup. Nothing is deleted; a file already imported (a crash before the rename) is only
 * renamed. A corrupt last-watchlist.json (only a remembered list) is set aside as the old release
 * did (its copy kept) and not imported, rather than stopping the start, and so is a corrupt
 * alerts-firings.json (the old release started its firing log empty then). An alerts.json entry
 * that its parser refuses (the old release left it out of evaluation) is not imported: a log line
 * names it, and it stays in the kept file.
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { CorruptFileError, readJsonFile } from '../jsonFile';
import { log } from '../log';
import { LAST_WATCHLIST_ROW, RECORDING_ROW, writeJsonRow } from '../recorder/recordingStore';
import { isLedgerFile, writeSpendRows } from '../quotaLedger';
import { isStoredSettings, writeSettingsRows } from '../settings';
import { insertTokenRows, isTokensFile } from '../tokens/tokenStore';
import type { AlertFiring } from '../../alerts/firing';
import { describeEntryError, validateAlertsFile } from '../alerts/alertsFile';
import { insertFiring } from '../alerts/firingLog';
import { IMPLICIT_OWNER, writeAlertRows } from '../alerts/store';
import { openDatabase, type Database, type DatabaseTarget, type Queryable } from './index';

interface LegacyFile {
	name: string;
	/** Reads and checks the file (CorruptFileError when it is not what gexdeck wrote). */
	read(path: string): unknown;
	write(tx: Queryable, value: unknown): Promise<void>;
	/** A corrupt file is set aside (its copy kept) and skipped instead of stopping the start. */
	forgetCorrupt?: boolean;
}

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null;

const LEGACY_FILES: readonly LegacyFile[] = [
	{
		name: 'settings.json',
		read: (path) => readJsonFile(path, isStoredSettings),
		write: (tx, value) => writeSettingsRows(tx, value as Parameters<typeof writeSettingsRows>[1])
	},
	{
		name: 'ledger.json',
		read: (path) => readJsonFile(path, isLedgerFile),
		write: (tx, value) => writeSpendRows(tx, (value as { accounts: never }).accounts)
	},
	{
		name: 'tokens.json',
		read: (path) => readJsonFile(path, isTokensFile),
		write: (tx, value) => insertTokenRows(tx, (value as { tokens: never }).tokens)
	},
	{
		name: 'recording.json',
		read: (path) => readJsonFile(path, isObject),
		write: (tx, value) => {
			const { version: _v, ...stored } = value as Record<string, unknown>;
			return writeJsonRow(tx, RECORDING_ROW, stored);
		}
	},
	{
		name: 'last-watchlist.json',
		read: (path) => readJsonFile(path, isObject),
		write: (tx, value) => {
			const { version: _v, ...stored } = value as Record<string, unknown>;
			return writeJsonRow(tx, LAST_WATCHLIST_ROW, stored);
		},
		forgetCorrupt: true
	},
	{
		name: 'alerts.json',
		read: (path) => readJsonFile(path, isObject),
		write: async (tx, value) => {
			const file = validateAlertsFile(value);
			for (const e of file.errors) {
				log.warn(`alerts.json: ${describeEntryError(e)}; not imported (it stays in the kept file)`);
			}
			await writeAlertRows(tx, IMPLICIT_OWNER, { ...file, publicUrl: file.file.publicUrl });
		}
	},
	{
		name: 'alerts-firings.json',
		read: (path) => readJsonFile(path, (v): v is AlertFiring[] => Array.isArray(v)),
		write: async (tx, value) => {
			for (const f of value as AlertFiring[]) {
				if (typeof f?.ruleId === 'string' && typeof f.at === 'number') {
					await insertFiring(tx, { ...f, firedAt: f.firedAt ?? f.at * 1000 }, IMPLICIT_OWNER);
				}
			}
		},
		forgetCorrupt: true
	}
];

/** Where an imported file is kept. */
export function backupName(name: string): string {
	return `${name}.imported`;
}

/** Import the older release's files found in `dataDir`; resolves to the names imported. */
export async function importLegacyFiles(db: Database, dataDir: string): Promise<string[]> {
	const imported: string[] = [];
	for (const file of LEGACY_FILES) {
		const path = join(dataDir, file.name);
		if (!existsSync(path)) continue;
		const done = await db.get(`SELECT name FROM imported_files WHERE name = ?`, [file.name]);
		if (!done) {
			let value: unknown;
			try {
				value = file.read(path);
			} catch (err) {
				if (!(file.forgetCorrupt && err instanceof CorruptFileError)) throw err;
				rmSync(path, { force: true });
				log.warn(`${path} was corrupt; set aside and not imported`, { copy: err.backup });
				continue;
			}
			// Claimed first: a replica that imported the same file meanwhile (replicas starting
			// together on one database) has it, and this one writes nothing.
			const claimed = await db.transaction(async (tx) => {
				const won = await tx.run(
					`INSERT INTO imported_files (name, imported_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`,
					[file.name, Date.now()]
				);
				if (won > 0) await file.write(tx, value);
				return won > 0;
			});
			if (claimed) imported.push(file.name);
		}
		let backup = join(dataDir, backupName(file.name));
		// An earlier backup of the same name is never overwritten.
		for (let n = 2; existsSync(backup); n++)
			backup = join(dataDir, `${backupName(file.name)}.${n}`);
		renameSync(path, backup);
		log.info(`${path} imported into the database ${db.name}; the file is kept as ${backup}`);
	}
	return imported;
}

/**
 * Open the records (the database of `target`, migrated) with an older release's files imported:
 * the dashboard's start and the CLIs (which cannot read the SvelteKit config) alike.
 */
export async function openRecords(target: DatabaseTarget): Promise<Database> {
	const db = await openDatabase(target);
	try {
		await importLegacyFiles(db, target.dataDir);
	} catch (err) {
		await db.close().catch(() => undefined);
		throw err;
	}
	return db;
}

/** The records named by the environment (GEXDECK_DATA_DIR, GEXDECK_DATABASE_URL), for CLIs. */
export function recordsFromEnv(env: NodeJS.ProcessEnv = process.env): DatabaseTarget {
	const raw = env.GEXDECK_DATA_DIR?.trim() || 'data/dashboard';
	return {
		dataDir: isAbsolute(raw) ? raw : resolve(process.cwd(), raw),
		url: env.GEXDECK_DATABASE_URL?.trim() || undefined
	};
}
