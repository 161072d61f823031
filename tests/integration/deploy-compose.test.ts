/**
 * deploy/compose.yaml (issue 30: a cluster in one file) agrees with the app, the Dockerfile and
 * the README, read without docker: Redis, PostgreSQL, two or more replicas built from
 * deploy/Dockerfile, and Caddy balancing every replica (WebSockets included) on its /readyz.
 * Each replica reaches Redis and the database by their service names, reads only settings the
 * dashboard's config knows, keeps its own data volume and shares one recordings volume.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { envOf, parseDockerfile, stage } from '../support/dockerfile';

const root = join(import.meta.dirname, '..', '..');
const read = (...p: string[]) => readFileSync(join(root, ...p), 'utf8');

interface Service {
	image?: string;
	build?: { context: string; dockerfile: string };
	environment?: Record<string, string>;
	volumes?: string[];
	depends_on?: string[] | Record<string, { condition: string }>;
	command?: string[];
	healthcheck?: { test: string[] };
}
const compose = parse(read('deploy', 'compose.yaml'), { merge: true }) as {
	services: Record<string, Service>;
	volumes: Record<string, unknown>;
};
const services = compose.services;
const replicas = Object.entries(services).filter(
	([, s]) => s.build && join('deploy', s.build.context, s.build.dockerfile) === 'deploy/Dockerfile'
);
const runtime = envOf(stage(parseDockerfile(read('deploy', 'Dockerfile')), 'runtime'));
/** `name:/path` volume mounts of a service, as { volume, path }. */
const mounts = (s: Service) =>
	(s.volumes ?? []).map((v) => {
		const [volume, path] = v.split(':');
		return { volume, path };
	});
/** A compose value with its `${VAR:-default}` / `${VAR:?message}` substitutions taken out. */
const literal = (v: string) => v.replace(/\$\{[^}]*\}/g, 'X');

describe('deploy/compose.yaml', () => {
	it('runs Redis, PostgreSQL, two or more replicas of deploy/Dockerfile and Caddy', () => {
		expect(services.redis.image).toMatch(/^redis:/);
		expect(services.postgres.image).toMatch(/^postgres:/);
		expect(services.proxy.image).toMatch(/^caddy:/);
		expect(replicas.length).toBeGreaterThanOrEqual(2);
	});

	it('points every replica at Redis and PostgreSQL by service name, once they are healthy', () => {
		const pg = services.postgres.environment!;
		for (const [, s] of replicas) {
			const env = s.environment!;
			expect(new URL(env.GEXDECK_REDIS_URL).host).toBe('redis:6379');
			const db = new URL(literal(env.GEXDECK_DATABASE_URL));
			expect(db.protocol).toBe('postgres:');
			expect(db.hostname).toBe('postgres');
			expect(db.username).toBe(pg.POSTGRES_USER);
			expect(db.pathname).toBe(`/${pg.POSTGRES_DB}`);
			expect(s.depends_on).toEqual({
				redis: { condition: 'service_healthy' },
				postgres: { condition: 'service_healthy' }
			});
			// A replica listens beyond loopback: it must have a password (required, no default).
			expect(env.GEXDECK_PASSWORD).toMatch(/^\$\{GEXDECK_PASSWORD:\?/);
		}
		expect(services.redis.command).toBeDefined();
		expect(services.postgres.volumes?.[0]).toMatch(/^pgdata:/);
	});

	it('sets only settings the dashboard reads', () => {
		const config = read('src', 'lib', 'server', 'config.ts');
		for (const [, s] of replicas) {
			for (const key of Object.keys(s.environment!)) expect(config).toContain(`env.${key}`);
		}
	});

	it('gives each replica its own data volume and all of them one recordings volume', () => {
		const data = replicas.map(([, s]) =>
			mounts(s).find((m) => m.path === runtime.GEXDECK_DATA_DIR)
		);
		expect(new Set(data.map((m) => m?.volume)).size).toBe(replicas.length);
		const rec = replicas.map(
			([, s]) => mounts(s).find((m) => m.path === s.environment!.GEXDECK_RECORDINGS_DIR)?.volume
		);
		expect(rec[0]).toBeDefined();
		expect(new Set(rec)).toEqual(new Set([rec[0]]));
		for (const m of [...data, { volume: rec[0] }])
			expect(compose.volumes).toHaveProperty(m!.volume!);
	});

	it('balances every replica through Caddy on its port, on /readyz', () => {
		const proxy = services.proxy;
		const file = mounts(proxy).find((m) => m.path === '/etc/caddy/Caddyfile')!;
		expect(file.volume).toBe('./Caddyfile');
		const caddy = read('deploy', 'Caddyfile');
		const upstreams = /reverse_proxy\s+([^{]+)\{/.exec(caddy)![1].trim().split(/\s+/);
		expect(upstreams.sort()).toEqual(replicas.map(([name]) => `${name}:${runtime.PORT}`).sort());
		expect(caddy).toMatch(/health_uri \/readyz/);
		expect(proxy.depends_on).toEqual(expect.arrayContaining(replicas.map(([name]) => name)));
	});

	it('checks each replica on /readyz (Redis and the database; the upstream only reported: cluster-ready.test.ts)', () => {
		for (const [name, s] of replicas) {
			const probe = s.healthcheck?.test ?? [];
			expect(probe.slice(0, 2), name).toEqual(['CMD', 'node']);
			expect(probe.join(' '), name).toMatch(/http:\/\/127\.0\.0\.1:.*\/readyz/);
		}
	});

	it('is what the README Cluster section says', () => {
		const readme = read('README.md');
		const cluster = readme.slice(readme.indexOf('## Cluster'), readme.indexOf('## Architecture'));
		expect(cluster).toContain('deploy/compose.yaml');
		expect(cluster).toContain('deploy/Caddyfile');
		for (const word of ['Redis', 'PostgreSQL', 'Caddy', 'GEXDECK_RECORDINGS_DIR'])
			expect(cluster).toContain(word);
		expect(cluster).toMatch(
			new RegExp(`\\b${['zero', 'one', 'two', 'three'][replicas.length]} replicas`)
		);
	});
});
