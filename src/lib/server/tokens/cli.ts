/**
 * `npm run token -- create <name> [--scope feed]`, `list`, `revoke <id|name>`: integration
 * tokens from a terminal, on the same file the running dashboard reads (GEXDECK_DATA_DIR,
 * default data/dashboard). A created token is printed once; a revoke takes effect at once in
 * a running dashboard (it re-reads the file when it changes).
 */
import { isAbsolute, resolve } from 'node:path';
import { TOKEN_SCOPES, TokenStore, type TokenScope } from './tokenStore';

function dataDir(): string {
	const raw = process.env.GEXDECK_DATA_DIR?.trim() || 'data/dashboard';
	return isAbsolute(raw) ? raw : resolve(process.cwd(), raw);
}

const USAGE =
	'usage: npm run token -- create <name> [--scope feed]... | list | revoke <id or name>';

function time(ms: number | null): string {
	return ms === null ? 'never' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + 'Z';
}

export function main(
	argv: string[],
	out = (line: string) =>
		void process.stdout.write(`${line}
`),
	err = (line: string) =>
		void process.stderr.write(`${line}
`)
): number {
	const [command, ...rest] = argv;
	const store = TokenStore.inDataDir(dataDir());
	try {
		if (command === 'create') {
			const scopes: TokenScope[] = [];
			const words: string[] = [];
			for (let i = 0; i < rest.length; i++) {
				if (rest[i] === '--scope') scopes.push(rest[++i] as TokenScope);
				else words.push(rest[i]);
			}
			const { token, info } = store.create(words.join(' '), scopes.length ? scopes : ['feed']);
			out(`Created token ${info.id} "${info.name}" (scopes: ${info.scopes.join(', ')}).`);
			out('Copy it now; it is not shown again:');
			out(token);
			return 0;
		}
		if (command === 'list') {
			const list = store.list();
			if (list.length === 0) out('No integration tokens.');
			for (const t of list) {
				out(
					`${t.id}  ${t.name}  scopes=${t.scopes.join(',')}  created=${time(t.createdAt)}  ` +
						`last used=${time(t.lastUsedAt)}${t.lastUsedFrom ? ` from ${t.lastUsedFrom}` : ''}`
				);
			}
			return 0;
		}
		if (command === 'revoke' && rest.length > 0) {
			const which = rest.join(' ');
			if (!store.revoke(which)) {
				err(`No single token with id or name "${which}".`);
				return 1;
			}
			out(`Revoked ${which}.`);
			return 0;
		}
	} catch (e) {
		err((e as Error).message);
		return 1;
	}
	err(USAGE);
	err(`scopes: ${TOKEN_SCOPES.join(', ')}`);
	return 2;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(main(process.argv.slice(2)));
