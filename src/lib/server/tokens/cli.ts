/**
 * `npm run token -- create <name> [--scope feed]`, `list`, `revoke <id|name>`: integration
 * tokens from a terminal, in the same database the running dashboard reads (GEXDECK_DATA_DIR's
 * gexdeck.db, default data/dashboard, or GEXDECK_DATABASE_URL). A created token is printed once;
 * a revoke takes effect at once in a running dashboard (every check looks the token up).
 *
 * A token belongs to a user: `--owner NAME` (an admin or trader), by default the first admin
 * (the single-user mode's implicit admin while there are no users). `list` names each owner.
 */
import { openRecords, recordsFromEnv } from '../db/legacyImport';
import { IMPLICIT_OWNER } from '../alerts/store';
import { firstAdminId } from '../users/owners';
import { UserStore } from '../users/userStore';
import { TOKEN_SCOPES, TokenStore, type TokenScope } from './tokenStore';

const USAGE =
	'usage: npm run token -- create <name> [--scope feed]... [--owner NAME] | list | revoke <id or name>';

function time(ms: number | null): string {
	return ms === null ? 'never' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + 'Z';
}

export async function main(
	argv: string[],
	out = (line: string) =>
		void process.stdout.write(`${line}
`),
	err = (line: string) =>
		void process.stderr.write(`${line}
`)
): Promise<number> {
	const [command, ...rest] = argv;
	let db;
	try {
		db = await openRecords(recordsFromEnv());
	} catch (e) {
		err((e as Error).message);
		return 1;
	}
	const store = new TokenStore(db);
	try {
		if (command === 'create') {
			const scopes: TokenScope[] = [];
			const words: string[] = [];
			let ownerName: string | undefined;
			for (let i = 0; i < rest.length; i++) {
				if (rest[i] === '--scope') scopes.push(rest[++i] as TokenScope);
				else if (rest[i] === '--owner') ownerName = rest[++i];
				else words.push(rest[i]);
			}
			let owner = (await firstAdminId(db)) ?? IMPLICIT_OWNER;
			if (ownerName !== undefined) {
				const user = await new UserStore(db).byName(ownerName);
				if (!user || user.disabled || user.role === 'viewer') {
					err(`No enabled admin or trader named "${ownerName}" (a viewer has no tokens).`);
					return 1;
				}
				owner = user.id;
			}
			const { token, info } = await store.create(
				words.join(' '),
				scopes.length ? scopes : ['feed'],
				owner
			);
			const whose = ownerName ? ` of ${ownerName}` : '';
			out(`Created token ${info.id} "${info.name}"${whose} (scopes: ${info.scopes.join(', ')}).`);
			out('Copy it now; it is not shown again:');
			out(token);
			return 0;
		}
		if (command === 'list') {
			const list = await store.list();
			const names = new Map((await new UserStore(db).list()).map((u) => [u.id, u.name]));
			if (list.length === 0) out('No integration tokens.');
			for (const t of list) {
				const owner = names.get(t.owner) ?? (t.owner === IMPLICIT_OWNER ? '-' : t.owner);
				out(
					`${t.id}  ${t.name}  owner=${owner}  scopes=${t.scopes.join(',')}  created=${time(t.createdAt)}  ` +
						`last used=${time(t.lastUsedAt)}${t.lastUsedFrom ? ` from ${t.lastUsedFrom}` : ''}`
				);
			}
			return 0;
		}
		if (command === 'revoke' && rest.length > 0) {
			const which = rest.join(' ');
			if (!(await store.revoke(which))) {
				err(`No single token with id or name "${which}".`);
				return 1;
			}
			out(`Revoked ${which}.`);
			return 0;
		}
	} catch (e) {
		err((e as Error).message);
		return 1;
	} finally {
		await db.close();
	}
	err(USAGE);
	err(`scopes: ${TOKEN_SCOPES.join(', ')}`);
	return 2;
}

if (import.meta.url === `file://${process.argv[1]}`) {
	process.exit(await main(process.argv.slice(2)));
}
