/**
 * `npm run user -- <command>`: the team's users from a terminal, in the same database the running
 * dashboard reads (GEXDECK_DATA_DIR's gexdeck.db, default data/dashboard, or
 * GEXDECK_DATABASE_URL). A running dashboard follows within two seconds (sessionStore.ts):
 *
 *   add [--admin | --trader | --viewer] NAME   the password is read from stdin (a prompt
 *                                              without echo on a terminal), never from argv
 *   list
 *   role NAME admin|trader|viewer             ends the user's sessions
 *   disable NAME / enable NAME                 disable ends the user's sessions
 *   signout NAME                               ends every session of the user
 *   passwd NAME                                a new password from stdin; ends the sessions
 */
import { openRecords, recordsFromEnv } from '../db/legacyImport';
import { isRole, type Role } from './roles';
import { endUserSessions } from './sessionStore';
import { addUser, changeRole, setDisabled, signOutEverywhere, type Actor } from './teams';
import { UserError, UserStore } from './userStore';
import { audit } from './audit';

const USAGE =
	'usage: npm run user -- add [--admin|--trader|--viewer] NAME | list | role NAME ROLE | ' +
	'disable NAME | enable NAME | signout NAME | passwd NAME   (passwords are read from stdin)';

const CLI: Actor = { name: 'cli', address: null };

/** The password: one line of stdin, or typed at a prompt without echo on a terminal. */
export async function readPassword(
	input: NodeJS.ReadStream = process.stdin,
	prompt = (text: string) => void process.stderr.write(text)
): Promise<string> {
	if (input.isTTY) {
		prompt('Password: ');
		input.setRawMode(true);
		return new Promise((resolve) => {
			let typed = '';
			const onData = (chunk: Buffer) => {
				for (const ch of chunk.toString('utf8')) {
					if (ch === '\r' || ch === '\n' || ch === '\u0004') {
						input.setRawMode(false);
						input.off('data', onData);
						input.pause();
						prompt('\n');
						resolve(typed);
						return;
					}
					if (ch === '\u0003') process.exit(130);
					typed = ch === '\u007f' ? typed.slice(0, -1) : typed + ch;
				}
			};
			input.on('data', onData);
			input.resume();
		});
	}
	let text = '';
	for await (const chunk of input) text += String(chunk);
	return text.replace(/\r?\n$/, '');
}

export async function main(
	argv: string[],
	password: () => Promise<string> = () => readPassword(),
	out = (line: string) => void process.stdout.write(`${line}\n`),
	err = (line: string) => void process.stderr.write(`${line}\n`)
): Promise<number> {
	const [command, ...rest] = argv;
	const flags = rest.filter((a) => a.startsWith('--'));
	const words = rest.filter((a) => !a.startsWith('--'));
	const known = ['add', 'list', 'role', 'disable', 'enable', 'signout', 'passwd'];
	if (!known.includes(command) || (command !== 'list' && words.length === 0)) {
		err(USAGE);
		return 2;
	}
	let db;
	try {
		db = await openRecords(recordsFromEnv());
	} catch (e) {
		err((e as Error).message);
		return 1;
	}
	try {
		const name = words[0];
		if (command === 'add') {
			const role = (flags.map((f) => f.slice(2)).find(isRole) ?? 'viewer') as Role;
			const user = await addUser(db, CLI, name, role, await password());
			out(`Added ${user.name} (${user.role}).`);
		} else if (command === 'list') {
			const users = await new UserStore(db).list();
			if (users.length === 0) out('No users: teams mode is off.');
			for (const u of users) {
				out(
					`${u.name}  ${u.role}${u.disabled ? '  disabled' : ''}  since ${new Date(u.createdAt).toISOString().slice(0, 10)}`
				);
			}
		} else if (command === 'role') {
			const role = words[1];
			if (!isRole(role)) throw new UserError('The role is admin, trader or viewer.');
			await changeRole(db, CLI, name, role);
			out(`${name} is now ${role}; their sessions ended.`);
		} else if (command === 'disable' || command === 'enable') {
			await setDisabled(db, CLI, name, command === 'disable');
			out(`${name} ${command}d.`);
		} else if (command === 'signout') {
			const n = await signOutEverywhere(db, CLI, name);
			out(`Ended ${n} session(s) of ${name}.`);
		} else {
			const user = await new UserStore(db).setPassword(name, await password());
			await endUserSessions(db, user.id);
			await audit(db, { actor: CLI.name, address: null, action: 'password changed', detail: name });
			out(`Changed the password of ${name}; their sessions ended.`);
		}
		return 0;
	} catch (e) {
		err((e as Error).message);
		return 1;
	} finally {
		await db.close();
	}
}

if (import.meta.url === `file://${process.argv[1]}`) {
	process.exit(await main(process.argv.slice(2)));
}
