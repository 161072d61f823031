/**
 * No production file under src/ is over 450 lines (issue 23): a file that grows past it holds
 * more than one job and is split by job (see src/lib/server/stream/relay.ts and the files beside
 * it). Tests, test support and generated code are not production files.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

export const MAX_LINES = 450;

/** Is `file` (a repository path) production source? */
export function isProduction(file: string): boolean {
	if (!/^src\/.*\.(ts|js|svelte)$/.test(file)) return false;
	if (/\.(test|spec)\.ts$|\.test-support\.ts$|\.d\.ts$/.test(file)) return false;
	return !file.startsWith('src/lib/proto/generated/');
}

/** `file: lines` of every production file over the limit. */
export function oversized(files: readonly string[], read: (f: string) => string): string[] {
	return files
		.filter(isProduction)
		.map((f) => ({ f, lines: (read(f).match(/\n/g) ?? []).length }))
		.filter(({ lines }) => lines > MAX_LINES)
		.map(({ f, lines }) => `${f}: ${lines} lines`);
}

function trackedFiles(): string[] {
	const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
		cwd: root,
		encoding: 'utf8'
	});
	return out.split('\n').filter((f) => f && existsSync(join(root, f)));
}

describe('production file size', () => {
	it(`no production file under src/ is over ${MAX_LINES} lines`, () => {
		expect(oversized(trackedFiles(), (f) => readFileSync(join(root, f), 'utf8'))).toEqual([]);
	});

	it('counts lines as wc -l does and leaves tests, test support and generated code out', () => {
		const long = 'x\n'.repeat(MAX_LINES + 1);
		const exact = 'x\n'.repeat(MAX_LINES);
		const files: Record<string, string> = {
			'src/lib/big.ts': long,
			'src/routes/x/+page.svelte': long,
			'src/lib/exact.ts': exact,
			'src/lib/big.test.ts': long,
			'src/lib/big.test-support.ts': long,
			'src/lib/proto/generated/wire.ts': long,
			'tests/integration/big.test.ts': long,
			'docs/BIG.md': long
		};
		expect(oversized(Object.keys(files), (f) => files[f])).toEqual([
			`src/lib/big.ts: ${MAX_LINES + 1} lines`,
			`src/routes/x/+page.svelte: ${MAX_LINES + 1} lines`
		]);
	});
});
