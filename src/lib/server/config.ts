/**
 * The dashboard's configuration: the one module that reads the private environment.
 *
 * Pointing gexdeck at the real service takes two variables: GEXDECK_UPSTREAM (the base URL with
 * its /v2 prefix) and GEXDECK_API_KEY (a custom-script key). Without GEXDECK_UPSTREAM the
 * dashboard starts the embedded service and uses its best demo account.
 */
import { env } from '$env/dynamic/private';
import { isAbsolute, resolve } from 'node:path';
import pkg from '../../../package.json';
import { parseAllowList, type AllowList } from './alerts/addressPolicy';
import { parseQuotaBudget, type QuotaBudget } from './cluster/budget';
import { parseOidcSettings, type OidcSettings } from './users/oidcSettings';

export interface DashboardConfig {
	/** Upstream base URL including the version prefix (`https://api.gex.bot/v2`); undefined = embedded. */
	upstream: string | undefined;
	/** Custom-script key from the environment (settings-page keys take precedence). */
	apiKey: string | undefined;
	/** Research key from the environment. */
	researchKey: string | undefined;
	/** Dashboard password; required when bound to a non-loopback address. */
	password: string | undefined;
	host: string;
	port: number;
	/** Absolute path of the dashboard's own state (keys, ledger, sessions). */
	dataDir: string;
	/** GEXDECK_DATABASE_URL: PostgreSQL for the records; undefined = `<dataDir>/gexdeck.db`. */
	databaseUrl: string | undefined;
	/** ORIGIN (adapter-node's public URL of the dashboard), normalised; undefined when unset. */
	origin: string | undefined;
	/**
	 * adapter-node's ADDRESS_HEADER (lower case) and XFF_DEPTH: where a reverse proxy puts the
	 * client's address. The raw node entry points (/api fast path, /stream) read it the same way.
	 */
	addressHeader: string | undefined;
	xffDepth: number;
	/** Mark cookies Secure and send HSTS: only when ORIGIN says the dashboard is served over https. */
	secureCookies: boolean;
	/** `gexdeck/<version>`, sent as User-Agent on every upstream request. */
	userAgent: string;
	/** GEXDECK_WEBHOOK_ALLOW: the non-public hosts and ranges webhooks may reach (LAN receivers). */
	webhookAllow: AllowList;
	/** GEXDECK_REDIS_URL: set = cluster mode (shared limits in Redis); undefined = one process. */
	redisUrl: string | undefined;
	/** GEXDECK_QUOTA_BUDGET: per-pool allowances the cluster's shared ledger never exceeds. */
	quotaBudget: QuotaBudget;
	/** GEXDECK_OIDC_*: sign-in through the team's identity provider; undefined = none. */
	oidc: OidcSettings | undefined;
	/** GEXDECK_RECORDINGS_DIR: the recordings (a volume every replica mounts); default `<dataDir>/recordings`. */
	recordingsDir: string | undefined;
}

function absolute(path: string | undefined): string | undefined {
	return path === undefined || isAbsolute(path) ? path : resolve(process.cwd(), path);
}

function nonEmpty(value: string | undefined): string | undefined {
	const trimmed = value?.trim();
	return trimmed ? trimmed : undefined;
}

/** `value` as an http(s) URL, or an error naming the variable `name` it came from. */
function httpUrl(name: string, value: string): URL {
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		throw new Error(`${name} is not a URL: ${value}`);
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		throw new Error(`${name} must be http(s): ${value}`);
	}
	return url;
}

/** Parse the upstream URL strictly: http(s), no credentials, no query, trailing slash removed. */
export function parseUpstream(raw: string | undefined): string | undefined {
	const value = nonEmpty(raw);
	if (!value) return undefined;
	const url = httpUrl('GEXDECK_UPSTREAM', value);
	if (url.username || url.password || url.search || url.hash) {
		throw new Error('GEXDECK_UPSTREAM must not carry credentials, a query or a fragment');
	}
	const href = url.href.replace(/\/+$/, '');
	// Root routes (/tickers/quant, /{package}/categories) live beside the version prefix.
	if (!/\/v\d+$/.test(href)) {
		throw new Error(
			`GEXDECK_UPSTREAM must end with the version prefix, e.g. https://api.gex.bot/v2`
		);
	}
	return href;
}

function parsePort(raw: string | undefined): number {
	const value = nonEmpty(raw);
	if (!value) return 3000;
	const port = Number(value);
	if (!Number.isInteger(port) || port < 0 || port > 65535) {
		throw new Error(`PORT must be an integer 0-65535, got ${value}`);
	}
	return port;
}

/** ORIGIN as an http(s) origin (adapter-node refuses anything else at start too). */
function parseOrigin(raw: string | undefined): string | undefined {
	const value = nonEmpty(raw);
	if (!value) return undefined;
	return httpUrl('ORIGIN', value).origin;
}

/** GEXDECK_REDIS_URL as a redis:// or rediss:// URL. */
export function parseRedisUrl(raw: string | undefined): string | undefined {
	const value = nonEmpty(raw);
	if (!value) return undefined;
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		throw new Error('GEXDECK_REDIS_URL is not a URL');
	}
	if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
		throw new Error('GEXDECK_REDIS_URL must be redis:// or rediss://');
	}
	return value;
}

let cached: DashboardConfig | undefined;

/** The configuration, read once. Throws a clear error for a malformed value. */
export function config(): DashboardConfig {
	if (cached) return cached;
	const dataDir = nonEmpty(env.GEXDECK_DATA_DIR) ?? 'data/dashboard';
	const origin = parseOrigin(env.ORIGIN);
	cached = {
		upstream: parseUpstream(env.GEXDECK_UPSTREAM),
		apiKey: nonEmpty(env.GEXDECK_API_KEY),
		researchKey: nonEmpty(env.GEXDECK_RESEARCH_KEY),
		password: nonEmpty(env.GEXDECK_PASSWORD),
		host: nonEmpty(env.HOST) ?? '127.0.0.1',
		port: parsePort(env.PORT),
		dataDir: isAbsolute(dataDir) ? dataDir : resolve(process.cwd(), dataDir),
		databaseUrl: nonEmpty(env.GEXDECK_DATABASE_URL),
		origin,
		addressHeader: nonEmpty(env.ADDRESS_HEADER)?.toLowerCase(),
		xffDepth: Math.max(1, Number.parseInt(nonEmpty(env.XFF_DEPTH) ?? '1', 10) || 1),
		secureCookies: origin?.startsWith('https:') ?? false,
		userAgent: `gexdeck/${pkg.version}`,
		webhookAllow: parseAllowList(env.GEXDECK_WEBHOOK_ALLOW),
		redisUrl: parseRedisUrl(env.GEXDECK_REDIS_URL),
		quotaBudget: parseQuotaBudget(env.GEXDECK_QUOTA_BUDGET),
		oidc: parseOidcSettings(env, origin),
		recordingsDir: absolute(nonEmpty(env.GEXDECK_RECORDINGS_DIR))
	};
	return cached;
}
