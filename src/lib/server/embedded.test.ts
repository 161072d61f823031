import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceCommand } from './embedded';

describe('serviceCommand', () => {
	it('runs the compiled service with plain node from inside an adapter-node build', () => {
		const build = mkdtempSync(join(tmpdir(), 'gexdeck-build-'));
		writeFileSync(join(build, 'handler.js'), '');
		mkdirSync(join(build, 'service'));
		writeFileSync(join(build, 'service', 'main.js'), '');
		mkdirSync(join(build, 'server', 'chunks'), { recursive: true });
		expect(serviceCommand(join(build, 'server', 'chunks')).args).toEqual([
			join(build, 'service', 'main.js')
		]);
	});

	it('runs the TypeScript sources through tsx anywhere else (dev, preview, tests)', () => {
		const command = serviceCommand(import.meta.dirname);
		expect(command.args.slice(0, 2)).toEqual(['--import', 'tsx']);
		expect(command.args[2]).toBe(join(command.cwd, 'src', 'service', 'main.ts'));
	});
});
