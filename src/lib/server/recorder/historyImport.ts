/**
 * A past day from the service's history (`/v2/hist/{ticker}/{package}/{category}/{date}`, Quant)
 * stored in the recorder's format, so every view reads it like a recorded day and it is fetched
 * once. The request goes through the REST proxy (the allowlist, the key, the quota ledger's
 * api_history_cache pool and its 429 backoff); the proxy hands the pre-signed download link back
 * as data, and this module downloads it server-side (no key is sent to the link, like an
 * object-store URL) and files each snapshot as a compressed record.
 */
import { isPackage, resolveCategory } from '../../contract/categories';
import { httpGet } from '../httpClient';
import type { UpstreamProxy } from '../proxy';
import type { SessionRecorder } from './sessionRecorder';
import { snapshotRecords } from './snapshotRecords';

export class HistoryImportError extends Error {
	constructor(
		readonly status: number,
		message: string
	) {
		super(message);
	}
}

export interface HistoryImportDeps {
	recorder: SessionRecorder;
	proxy: Pick<UpstreamProxy, 'handle'>;
	userAgent: string;
	get?: typeof httpGet;
}

const inFlight = new Map<string, Promise<number>>();

/** `classic_gex_full` -> its package and canonical category, or undefined. */
export function routeOfStream(stream: string): { pkg: string; category: string } | undefined {
	const m = /^(classic|state|orderflow)_([a-z0-9_]+)$/.exec(stream);
	if (!m || !isPackage(m[1])) return undefined;
	const category = resolveCategory(m[1], m[2]);
	return category ? { pkg: m[1], category } : undefined;
}

/**
 * Makes sure `day` of `ticker`'s `stream` is on disk, fetching it from the service when it is
 * not. Resolves with the records now stored for the day; concurrent calls share one download.
 */
export function importHistoryDay(
	deps: HistoryImportDeps,
	ticker: string,
	stream: string,
	day: string
): Promise<number> {
	const key = `${ticker}/${stream}/${day}`;
	let running = inFlight.get(key);
	if (!running) {
		running = run(deps, ticker, stream, day).finally(() => inFlight.delete(key));
		inFlight.set(key, running);
	}
	return running;
}

async function run(
	deps: HistoryImportDeps,
	ticker: string,
	stream: string,
	day: string
): Promise<number> {
	const existing = deps.recorder.count(day, ticker, stream);
	if (existing > 0) return existing;
	const route = routeOfStream(stream);
	if (!route) throw new HistoryImportError(400, `The service keeps no history of ${stream}.`);
	const answer = await deps.proxy.handle(
		'GET',
		`hist/${ticker}/${route.pkg}/${route.category}/${day}`,
		new URLSearchParams()
	);
	const text = typeof answer.body === 'string' ? answer.body : Buffer.from(answer.body).toString();
	if (answer.status !== 200) {
		let message = `the service answered ${answer.status}`;
		try {
			message = (JSON.parse(text) as { error?: string }).error ?? message;
		} catch {
			// not JSON
		}
		throw new HistoryImportError(answer.status, message);
	}
	const { url } = JSON.parse(text) as { url?: string };
	if (!url || !/^https?:\/\//.test(url)) {
		throw new HistoryImportError(502, 'The service gave no download link.');
	}
	const file = await (deps.get ?? httpGet)(
		new URL(url),
		{ 'user-agent': deps.userAgent, accept: 'application/json' },
		120_000
	);
	if (file.status !== 200) {
		throw new HistoryImportError(502, `The history download answered ${file.status}.`);
	}
	let records;
	try {
		records = await snapshotRecords(file.body.toString('utf8'));
	} catch (e) {
		throw new HistoryImportError(
			502,
			`The history file is not a JSON list: ${(e as Error).message}`
		);
	}
	if (records.length === 0)
		throw new HistoryImportError(404, `The service has no ${stream} for ${day}.`);
	deps.recorder.import(day, ticker, stream, records);
	return records.length;
}
