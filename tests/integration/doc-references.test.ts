/**
 * Every file a comment, a doc or the lint config names exists in the repository: a Markdown
 * file (a bare name is looked for beside the file and at the root) and a repository path
 * (`src/lib/server/feeds/`, `eslint/layerZones.js`). A reader who clones the repository can
 * open whatever it points to; a file moved or renamed without its references fails here. Build
 * and benchmark outputs (not in git) and a file named as removed are no references.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

const TOP = ['src', 'tests', 'bench', 'eslint', 'scripts', 'docs', 'proto', 'deploy', 'static'];
/** `docs/ARCHITECTURE.md`, `README.md`: a Markdown file named anywhere. */
const MARKDOWN = /(?<![\w/.@-])([\w][\w./-]*\.md)\b/g;
/** `src/lib/server/feeds/`, `tests/e2e/state.spec.ts`, `src/routes/[ticker]/+page.svelte`. */
const PATH = new RegExp(`(?<![\\w/.@$-])((?:${TOP.join('|')})/[\\w./\\[\\]+-]*)`, 'g');
const CODE = /\.(ts|js|svelte|cjs|mjs)$/;
/** Comments of a code file (the strings of a test, e.g. probe paths, are not references). */
const COMMENT = /\/\*[\s\S]*?\*\/|(?<![:'"`\w])\/\/[^\n]*|<!--[\s\S]*?-->/g;

/** The text of `file` that may name other files: a doc whole, a code file's comments. */
export function prose(file: string, text: string): string {
	return CODE.test(file) ? (text.match(COMMENT) ?? []).join('\n') : text;
}

/** Outputs written by a build or a benchmark run: named, never committed. */
const OUTPUTS = /^(build|bench\/results|test-results|playwright-report|\.svelte-kit)\//;
const SELF = 'tests/integration/doc-references.test.ts';

function exists(path: string): boolean {
	return ['', '.ts', '.js', '.svelte', '.svelte.ts'].some((ext) => existsSync(path + ext));
}

/** `file: name` of every reference in `text` (of `file`) that names no file of the repository. */
export function brokenReferences(file: string, text: string, has = exists): string[] {
	const body = prose(file, text);
	const broken = new Set<string>();
	const history = (m: RegExpMatchArray) =>
		/^[\s,(]*(removed|deleted)/.test(
			body.slice(m.index! + m[0].length, m.index! + m[0].length + 12)
		);
	for (const m of body.matchAll(PATH)) {
		const name = m[1].replace(/[.,]+$/, '');
		if (OUTPUTS.test(name) || history(m)) continue;
		if (!has(join(root, name))) broken.add(`${file}: ${name}`);
	}
	for (const m of body.matchAll(MARKDOWN)) {
		const name = m[1];
		if (OUTPUTS.test(name) || [...broken].some((b) => b.endsWith(name))) continue;
		if (!has(join(root, dirname(file), name)) && !has(join(root, name)))
			broken.add(`${file}: ${name}`);
	}
	return [...broken];
}

function trackedFiles(): string[] {
	const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
		cwd: root,
		encoding: 'utf8'
	});
	return out
		.split('\n')
		.filter((f) => f && existsSync(join(root, f)))
		.filter((f) => /\.(md|ts|js|svelte|cjs|mjs|json|yml|yaml)$|Dockerfile$/.test(f))
		.filter((f) => f !== SELF && !/^(package-lock\.json|src\/lib\/proto\/generated\/)/.test(f));
}

describe('references to files', () => {
	it('every file named in a comment, a doc or the lint config exists', () => {
		const broken = trackedFiles().flatMap((f) =>
			brokenReferences(f, readFileSync(join(root, f), 'utf8'))
		);
		expect(broken).toEqual([]);
	});

	it('catches a Markdown file or a path that is not there', () => {
		const code = '/** See DESIGN.md "Layers" and src/lib/nowhere/gone.ts. */\nconst x = 1;\n';
		expect(brokenReferences('src/lib/probe.ts', code)).toEqual([
			'src/lib/probe.ts: src/lib/nowhere/gone.ts',
			'src/lib/probe.ts: DESIGN.md'
		]);
		const removed = '// the walk it replaced (src/lib/nowhere/gone.ts, removed)\n';
		expect(brokenReferences('src/lib/probe.ts', removed)).toEqual([]);
		const fine = '// docs/ARCHITECTURE.md, README.md and src/lib/server/feeds/ are there.\n';
		expect(brokenReferences('src/lib/probe.ts', fine, (p) => !p.includes('nowhere'))).toEqual([]);
		// A test's probe path in a string is no reference.
		expect(brokenReferences('tests/x.test.ts', "lint('src/lib/contract/probe.ts');\n")).toEqual([]);
	});
});
