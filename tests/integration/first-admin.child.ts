/**
 * One dashboard's database start as a process of its own, so a test can start two at once on
 * one empty database (issue 30: replicas starting together): open and migrate the database,
 * then teams mode's start (a GEXDECK_PASSWORD setup becomes the admin user). Prints `ready`
 * once loaded, waits for a line on stdin (so both start the race together), then prints
 * `{"teams":true|false}` and exits 0; a failed start exits 1 with the error on stderr.
 *
 *   node --import tsx first-admin.child.ts <data dir> <password> [postgres url]
 */
import { createInterface } from 'node:readline';
import { openDatabase } from '../../src/lib/server/db/index';
import { setLogSink } from '../../src/lib/server/log';
import { startTeams, teamsMode } from '../../src/lib/server/users/teams';

const [dataDir, password, url] = process.argv.slice(2);
setLogSink({ out: () => undefined, err: (line) => process.stderr.write(`${line}\n`) });
process.stdout.write('ready\n');
const rl = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => rl.once('line', () => resolve()));
rl.close();
try {
	const db = await openDatabase(url ? { dataDir, url } : { dataDir });
	await startTeams(db, password);
	process.stdout.write(`${JSON.stringify({ teams: teamsMode() })}\n`);
	await db.close();
	process.exit(0);
} catch (err) {
	process.stderr.write(`start failed: ${(err as Error).stack ?? String(err)}\n`);
	process.exit(1);
}
