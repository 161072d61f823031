/**
 * The dashboard process's one database, opened by the server's init hook before anything reads
 * a record (hooks.server.ts): the configured database is opened and migrated, the JSON files of
 * an older release are imported (legacyImport.ts), and the stores load from it.
 */
import { config } from '../config';
import type { Database } from './index';
import { openRecords } from './legacyImport';

let opening: Promise<Database> | undefined;
let opened: Database | undefined;

/** Open (once) the configured database, importing an older release's JSON files. */
export function openAppDatabase(): Promise<Database> {
	opening ??= (async () => {
		const cfg = config();
		const db = await openRecords({ url: cfg.databaseUrl, dataDir: cfg.dataDir });
		opened = db;
		return db;
	})();
	return opening;
}

/** The open database; only after openAppDatabase() resolved (the init hook awaits it). */
export function appDatabase(): Database {
	if (!opened) throw new Error('the database is not open yet (the init hook opens it)');
	return opened;
}
