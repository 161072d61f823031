/**
 * The browser decodes frames under a CSP without 'unsafe-eval' (and without
 * 'wasm-unsafe-eval'): the generated codec and the protobufjs/minimal runtime it loads must not
 * compile code at run time. `long` (loaded by protobufjs/minimal) tries a WebAssembly module
 * inside try/catch and falls back to JS when the CSP forbids it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const RUNTIME_CODEGEN = /\beval\s*\(|\bnew\s+Function\b|\bFunction\s*\(/;

function minimalRuntimeFiles(): string[] {
	const src = join(dirname(require.resolve('protobufjs/minimal.js')), 'src');
	const seen = new Set<string>();
	const queue = [join(src, 'index-minimal.js')];
	while (queue.length > 0) {
		const file = queue.pop()!;
		if (seen.has(file)) continue;
		seen.add(file);
		const code = readFileSync(file, 'utf8')
			.replace(/\/\*[\s\S]*?\*\//g, '')
			.replace(/^\s*\/\/.*$/gm, '');
		for (const m of code.matchAll(/require\("(\.[^"]+)"\)/g)) {
			queue.push(join(dirname(file), m[1].endsWith('.js') ? m[1] : `${m[1]}.js`));
		}
	}
	return [...seen];
}

describe('CSP safety of the decoder', () => {
	it('the generated static codec has no eval or Function', () => {
		const code = readFileSync(join(here, '../proto/generated/wire.js'), 'utf8');
		expect(code).not.toMatch(RUNTIME_CODEGEN);
		expect(code).toContain('protobufjs/minimal.js');
	});

	it('protobufjs/minimal pulls in no code generator', () => {
		const files = minimalRuntimeFiles();
		expect(files.length).toBeGreaterThan(5);
		for (const f of files) expect(readFileSync(f, 'utf8'), f).not.toMatch(RUNTIME_CODEGEN);
	});

	it('long guards its WebAssembly fast path', () => {
		const code = readFileSync(require.resolve('long'), 'utf8');
		expect(code).toMatch(/try\s*{\s*wasm = new WebAssembly\.Instance/);
	});
});
