import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVICE_HEAP_FLAGS, serviceCommand } from './embedded';

describe('serviceCommand', () => {
	it('runs the compiled service with plain node from inside an adapter-node build', () => {
		const build = mkdtempSync(join(tmpdir(), 'gexdeck-build-'));
		writeFileSync(join(build, 'handler.js'), '');
		mkdirSync(join(build, 'service'));
		writeFileSync(join(build, 'service', 'main.js'), '');
		mkdirSync(join(build, 'server', 'chunks'), { recursive: true });
		expect(serviceCommand(join(build, 'server', 'chunks')).args).toEqual([
			...SERVICE_HEAP_FLAGS,
			join(build, 'service', 'main.js')
		]);
	});

	it('runs the TypeScript sources through tsx anywhere else (dev, preview, tests)', () => {
		const command = serviceCommand(import.meta.dirname);
		const flags = SERVICE_HEAP_FLAGS.length;
		expect(command.args.slice(0, flags)).toEqual(SERVICE_HEAP_FLAGS);
		expect(command.args.slice(flags, flags + 2)).toEqual(['--import', 'tsx']);
		expect(command.args[flags + 2]).toBe(join(command.cwd, 'src', 'service', 'main.ts'));
	});
});

describe('SERVICE_HEAP_FLAGS', () => {
	/** The young generation's size after a burst of short-lived objects, in a node with `flags`. */
	const youngGenerationMb = (flags: string[]) =>
		Number(
			execFileSync(process.execPath, [
				...flags,
				'-e',
				`let keep;
				for (let r = 0; r < 100; r++) keep = Array.from({ length: 100000 }, (_, i) => ({ i }));
				const s = require('node:v8').getHeapSpaceStatistics().find((x) => x.space_name === 'new_space');
				console.log(s.space_size / 1048576);`
			]).toString()
		);

	it('caps the young generation of the service below what node grows it to by default', () => {
		const capped = youngGenerationMb(SERVICE_HEAP_FLAGS);
		// Two semi-spaces of at most 2 MB each, where the default grows them to 16 MB each.
		expect(capped).toBeLessThanOrEqual(4);
		expect(youngGenerationMb([])).toBeGreaterThan(capped * 2);
	});
});
