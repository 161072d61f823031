/**
 * The deployment examples in deploy/ agree with the app and with the production test:
 * the Dockerfile is multi-stage, runs as a non-root user with the data folder as a volume, and
 * its commands are the ones tests/integration/production.test.ts executes (every RUN is an npm
 * command the test runs, or the one image-setup line it cannot: creating /data for the user);
 * the systemd unit runs the same `node build` with the data folder systemd creates for it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envOf, execForm, npmRuns, parseDockerfile, stage } from '../support/dockerfile';

const root = join(import.meta.dirname, '..', '..');
const text = readFileSync(join(root, 'deploy', 'Dockerfile'), 'utf8');
const stages = parseDockerfile(text);

describe('deploy/Dockerfile', () => {
	it('builds in one stage and runs from another, on the supported Node', () => {
		expect(stages.map((s) => s.name)).toEqual(['build', 'runtime']);
		const engines = (
			JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
				engines: { node: string };
			}
		).engines.node;
		const major = Number(/\d+/.exec(engines)![0]);
		for (const s of stages) expect(s.from).toMatch(new RegExp(`^node:${major}\\b`));
	});

	it('runs exactly the npm commands the production test runs', () => {
		expect(npmRuns(stage(stages, 'build'))).toEqual([
			'npm ci --no-audit --no-fund',
			'npm run build'
		]);
		expect(npmRuns(stage(stages, 'runtime'))).toEqual([
			'npm ci --omit=dev --ignore-scripts --no-audit --no-fund'
		]);
		const other = stages.flatMap((s) =>
			s.instructions
				.filter((i) => i.op === 'RUN' && !npmRuns(s).includes(i.args))
				.map((i) => i.args)
		);
		expect(other).toEqual(['mkdir -p /data /recordings && chown node:node /data /recordings']);
		const runtime = stage(stages, 'runtime');
		expect(execForm(runtime.instructions.find((i) => i.op === 'CMD')!.args)).toEqual([
			'node',
			'build'
		]);
		// What reaches the runtime: package files and build/ only.
		expect(runtime.instructions.filter((i) => i.op === 'COPY').map((i) => i.args)).toEqual([
			'package.json package-lock.json ./',
			'--from=build /app/build ./build'
		]);
	});

	it('runs as a non-root user with the data folder as a volume', () => {
		const runtime = stage(stages, 'runtime');
		const ops = runtime.instructions.map((i) => i.op);
		const user = runtime.instructions.find((i) => i.op === 'USER')!.args;
		expect(user).not.toMatch(/^(root|0)(:|$)/);
		// USER comes after the last RUN and before CMD: nothing runs as root at run time.
		expect(ops.lastIndexOf('RUN')).toBeLessThan(ops.indexOf('USER'));
		expect(ops.indexOf('USER')).toBeLessThan(ops.indexOf('CMD'));
		const env = envOf(runtime);
		expect(env.GEXDECK_DATA_DIR).toBe('/data');
		expect(env.NODE_ENV).toBe('production');
		expect(execForm(runtime.instructions.find((i) => i.op === 'VOLUME')!.args)).toEqual([
			env.GEXDECK_DATA_DIR
		]);
		expect(runtime.instructions.find((i) => i.op === 'STOPSIGNAL')?.args).toBe('SIGTERM');
		const health = runtime.instructions.find((i) => i.op === 'HEALTHCHECK')!.args;
		expect(health).toContain('/healthz');
	});
});

describe('deploy/gexdeck.service', () => {
	const unit = readFileSync(join(root, 'deploy', 'gexdeck.service'), 'utf8');
	const values = (key: string) =>
		unit
			.split('\n')
			.filter((l) => l.startsWith(`${key}=`))
			.map((l) => l.slice(key.length + 1));

	it('runs `node build` as its own user, on loopback, with the data folder systemd creates', () => {
		expect(values('ExecStart')).toEqual(['/usr/bin/env node build']);
		expect(values('User')[0]).not.toBe('root');
		const env = Object.fromEntries(values('Environment').map((v) => v.split('=', 2)));
		expect(env.HOST).toBe('127.0.0.1');
		expect(env.GEXDECK_DATA_DIR).toBe(`/var/lib/${values('StateDirectory')[0]}`);
	});

	it('stops by SIGTERM to the dashboard alone, with time for its 10 s shutdown', () => {
		expect(values('KillSignal')).toEqual(['SIGTERM']);
		// mixed: the dashboard stops its embedded service itself, after its last answer.
		expect(values('KillMode')).toEqual(['mixed']);
		expect(Number(values('TimeoutStopSec')[0])).toBeGreaterThan(10);
	});
});
