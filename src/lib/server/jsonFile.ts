/**
 * Small JSON state files of the dashboard (keys, ledger): written to a temp file and renamed, so
 * a crash never leaves half a file, with owner-only permissions because they may hold secrets.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The parsed file, or undefined when it does not exist. A corrupt file is a clear error. */
export function readJsonFile<T>(path: string): T | undefined {
	let text: string;
	try {
		text = readFileSync(path, 'utf8');
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
		throw err;
	}
	try {
		return JSON.parse(text) as T;
	} catch (err) {
		throw new Error(`${path}: not valid JSON (${(err as Error).message})`, { cause: err });
	}
}

/** Write `value` as JSON with mode 0600 (temp file + rename). */
export function writeJsonFile(path: string, value: unknown): void {
	mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
	const tmp = `${path}.${process.pid}.tmp`;
	writeFileSync(tmp, JSON.stringify(value, null, '\t'), { mode: 0o600 });
	// The mode of writeFileSync is filtered by the umask; make it exact.
	chmodSync(tmp, 0o600);
	renameSync(tmp, path);
}
