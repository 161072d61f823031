/**
 * Small JSON state files of the dashboard (keys, ledger): written to a temp file, flushed and
 * renamed, so a crash, a full disk (ENOSPC) or a read-only folder never leaves half a file: the
 * old file survives intact and the write throws a clear error. Files are owner-only (0600) and
 * the folders holding them are created 0700 because they may hold secrets.
 *
 * A file that exists but is not what we wrote (not JSON, wrong shape) is never silently reset:
 * reading it throws CorruptFileError naming the file, after a copy has been kept beside it.
 *
 * The file operations are injectable (FileOps) so tests can make a write fail the way a full or
 * read-only disk does; root ignores permissions, so chmod cannot simulate it.
 */
import * as fs from 'node:fs';
import { dirname } from 'node:path';

export type FileOps = Pick<
	typeof fs,
	| 'mkdirSync'
	| 'openSync'
	| 'writeSync'
	| 'fsyncSync'
	| 'closeSync'
	| 'renameSync'
	| 'rmSync'
	| 'readFileSync'
	| 'copyFileSync'
>;

export const nodeFileOps: FileOps = fs;

export class CorruptFileError extends Error {
	constructor(
		readonly path: string,
		readonly backup: string | undefined,
		why: string
	) {
		super(
			`${path} is corrupt (${why}). ` +
				(backup ? `A copy was kept at ${backup}. ` : '') +
				'Fix or remove the file, then start gexdeck again; nothing was overwritten.'
		);
		this.name = 'CorruptFileError';
	}
}

/** Create `dir` (and missing parents) owner-only; an existing folder is left as it is. */
export function ensurePrivateDir(dir: string, ops: FileOps = nodeFileOps): void {
	// The umask can only remove bits, so 0700 stays 0700 for every folder created here.
	ops.mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/**
 * The parsed file, or undefined when it does not exist. `valid` checks its shape; a file that is
 * not JSON or fails the check is backed up and reported as CorruptFileError.
 */
export function readJsonFile<T>(
	path: string,
	valid: (value: unknown) => value is T = (v): v is T => v !== undefined,
	ops: FileOps = nodeFileOps
): T | undefined {
	let text: string;
	try {
		text = ops.readFileSync(path, 'utf8') as string;
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
		throw new Error(`${path}: cannot be read (${(err as Error).message})`, { cause: err });
	}
	let value: unknown;
	let why: string | undefined;
	try {
		value = JSON.parse(text);
		if (!valid(value)) why = 'not the expected content';
	} catch (err) {
		why = `not valid JSON: ${(err as Error).message}`;
	}
	if (why === undefined) return value as T;
	const backup = `${path}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
	try {
		ops.copyFileSync(path, backup, fs.constants.COPYFILE_EXCL);
		throw new CorruptFileError(path, backup, why);
	} catch (err) {
		if (err instanceof CorruptFileError) throw err;
		throw new CorruptFileError(path, undefined, why);
	}
}

/** Write `value` as JSON, mode 0600, atomically (temp file, fsync, rename). */
export function writeJsonFile(path: string, value: unknown, ops: FileOps = nodeFileOps): void {
	ensurePrivateDir(dirname(path), ops);
	const tmp = `${path}.${process.pid}.tmp`;
	const data = Buffer.from(JSON.stringify(value, null, '\t'));
	try {
		// A temp file left by a crash may have another mode: start from nothing.
		ops.rmSync(tmp, { force: true });
		const fd = ops.openSync(tmp, 'w', 0o600);
		try {
			let written = 0;
			while (written < data.length) written += ops.writeSync(fd, data, written);
			ops.fsyncSync(fd);
		} finally {
			ops.closeSync(fd);
		}
		ops.renameSync(tmp, path);
	} catch (err) {
		// The old file is untouched; remove the partial temp file (best effort).
		try {
			ops.rmSync(tmp, { force: true });
		} catch {
			// a read-only folder may refuse this too
		}
		const code = (err as NodeJS.ErrnoException).code;
		throw new Error(
			`${path} could not be saved (${code ?? (err as Error).message}); the previous version is kept.`,
			{ cause: err }
		);
	}
}
