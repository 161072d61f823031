/**
 * Atomic JSON state files: a full disk (ENOSPC) or a read-only folder (EROFS) while writing
 * leaves the old file intact; a corrupt file is reported by name with a copy kept, never reset.
 * Failures are injected through FileOps (tests run as root, where chmod stops nothing).
 */
import * as fs from 'node:fs';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
	CorruptFileError,
	nodeFileOps,
	readJsonFile,
	writeJsonFile,
	type FileOps
} from './jsonFile';

function errno(code: string): NodeJS.ErrnoException {
	return Object.assign(new Error(`${code}: injected`), { code });
}

/** Real file operations, except that `failing` throws `code` (after writing half, for writeSync). */
function faulty(failing: keyof FileOps, code: string): FileOps {
	const ops = { ...nodeFileOps } as Record<string, unknown>;
	if (failing === 'writeSync') {
		ops.writeSync = (fd: number, data: Buffer, offset: number) => {
			fs.writeSync(fd, data, offset, Math.max(1, Math.floor((data.length - offset) / 2)));
			throw errno(code);
		};
	} else {
		ops[failing] = () => {
			throw errno(code);
		};
	}
	return ops as unknown as FileOps;
}

const dir = () => mkdtempSync(join(tmpdir(), 'gexdeck-json-'));

describe('writeJsonFile', () => {
	it('creates owner-only folders and files', () => {
		const path = join(dir(), 'fresh', 'nested', 'settings.json');
		writeJsonFile(path, { version: 1 });
		expect(statSync(path).mode & 0o777).toBe(0o600);
		expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
		expect(statSync(join(path, '..', '..')).mode & 0o777).toBe(0o700);
	});

	for (const [failing, code] of [
		['writeSync', 'ENOSPC'],
		['openSync', 'EROFS'],
		['fsyncSync', 'EIO'],
		['renameSync', 'EROFS']
	] as const) {
		it(`keeps the old file intact when ${failing} fails with ${code}`, () => {
			const d = dir();
			const path = join(d, 'settings.json');
			writeJsonFile(path, { version: 1, customKey: 'old' });
			const before = readFileSync(path, 'utf8');
			expect(() =>
				writeJsonFile(path, { version: 1, customKey: 'x'.repeat(10_000) }, faulty(failing, code))
			).toThrow(
				new RegExp(`settings.json could not be saved \\(${code}\\); the previous version is kept`)
			);
			expect(readFileSync(path, 'utf8')).toBe(before);
			expect(readdirSync(d)).toEqual(['settings.json']); // no temp file left behind
		});
	}
});

describe('readJsonFile', () => {
	it('reports a corrupt file by name, keeps a copy and leaves the file alone', () => {
		const d = dir();
		const path = join(d, 'ledger.json');
		writeFileSync(path, '{"version":1,"accounts":{"a"');
		let error: unknown;
		try {
			readJsonFile(path);
		} catch (err) {
			error = err;
		}
		expect(error).toBeInstanceOf(CorruptFileError);
		expect((error as Error).message).toContain(path);
		const backup = (error as CorruptFileError).backup!;
		expect(readFileSync(backup, 'utf8')).toBe('{"version":1,"accounts":{"a"');
		expect(readFileSync(path, 'utf8')).toBe('{"version":1,"accounts":{"a"');
	});

	it('treats valid JSON of the wrong shape as corrupt too (never a silent reset)', () => {
		const path = join(dir(), 'settings.json');
		writeFileSync(path, '[1,2,3]');
		expect(() =>
			readJsonFile(path, (v): v is { version: 1 } => (v as { version?: number }).version === 1)
		).toThrow(CorruptFileError);
	});

	it('answers undefined for a missing file', () => {
		expect(readJsonFile(join(dir(), 'none.json'))).toBeUndefined();
	});
});
