/**
 * `npm run bench [-- name ...]`: runs every bench/*.bench.ts (or the named ones) one after
 * another in its own process, so no two measurements share the machine, and collects what
 * each prints into bench/results/latest.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const LONG = ['soak.bench.ts'];
const here = dirname(fileURLToPath(import.meta.url));
// Names pick benchmarks; `--flag value` pairs are passed on to each of them (soak: --minutes).
const wanted: string[] = [];
const flags: string[] = [];
for (let i = 2; i < process.argv.length; i++) {
	const arg = process.argv[i];
	if (!arg.startsWith('--')) wanted.push(arg);
	else if (arg.includes('=') || process.argv[i + 1]?.startsWith('--') !== false) flags.push(arg);
	else flags.push(arg, process.argv[++i]);
}
const files = readdirSync(here)
	.filter((f) => f.endsWith('.bench.ts'))
	// The soak runs for 20 minutes: only when named (`npm run bench -- soak`).
	.filter((f) => (wanted.length === 0 ? !LONG.includes(f) : wanted.some((w) => f.startsWith(w))))
	.sort();

if (files.length === 0) {
	console.error(`no benchmark matches ${wanted.join(', ')}`);
	process.exit(2);
}

const sections: string[] = [];
let failed = 0;
for (const file of files) {
	console.log(`\n=== ${file} ===`);
	const started = Date.now();
	const run = spawnSync(process.execPath, ['--import', 'tsx', join(here, file), ...flags], {
		stdio: ['ignore', 'pipe', 'inherit'],
		encoding: 'utf8',
		maxBuffer: 64 * 1024 * 1024
	});
	process.stdout.write(run.stdout ?? '');
	const seconds = ((Date.now() - started) / 1000).toFixed(1);
	if (run.status !== 0) failed++;
	sections.push(
		`## ${file} (${seconds} s${run.status === 0 ? '' : `, exit ${run.status}`})\n\n${run.stdout ?? ''}`
	);
}

const out = join(here, 'results');
mkdirSync(out, { recursive: true });
const header = `# gexdeck benchmarks\n\n${new Date().toISOString()}, node ${process.version}\n\n`;
writeFileSync(join(out, 'latest.md'), header + sections.join('\n'));
console.log(`\nwritten to bench/results/latest.md`);
process.exit(failed === 0 ? 0 : 1);
