/**
 * GET /v2/hist/{ticker}/{package}/{category}/{date}: checks the 90-day window, makes sure the
 * market has the day (waiting for an on-demand simulation, bounded by the market), then answers
 * with a pre-signed download link served by this process: a 302 to it, or with `noredirect`
 * a 200 `{"url": ...}`. The download itself (`/download/hist/...`) needs no key, like an
 * object-store link, and is gzip-encoded when the client accepts gzip: a complete day is the
 * market's gzip file streamed from disk (decompressed on the fly for a client without gzip).
 * A day not ready yet answers 504 with `{"error", "status": "queued"|"generating", "position",
 * "progress", "eta_seconds"}` and a Retry-After header.
 */
import { createReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createGunzip, gzip as gzipCb } from 'node:zlib';
import { isCalendarDate } from '../../lib/contract/dates';
import { isPackage, resolveCategory } from '../../lib/contract/categories';
import { isTicker } from '../../lib/contract/tickers';
import {
	HistoryPendingError,
	HistoryUnavailableError,
	type CanonicalCategory,
	type HistoryDayFile,
	type PackageName
} from '../source';
import { etDate } from '../quota/windows';
import type { ServiceContext } from './context';
import { daysBetween } from '../market/clock';
import { HttpError, JSON_TYPE, sendJson } from './respond';
import { requestOrigin } from './requestOrigin';

const gzip = promisify(gzipCb);

export const HISTORY_WINDOW_DAYS = 90;
export const DOWNLOAD_PREFIX = '/download/hist/';

/** Refuses dates in the future or older than the rolling 90-day window (ET calendar). */
export function checkHistoryWindow(ctx: ServiceContext, date: string): void {
	const today = etDate(ctx.market.now());
	const age = daysBetween(date, today);
	if (age < 0) throw new HttpError(400, `Date ${date} is in the future.`);
	if (age > HISTORY_WINDOW_DAYS) {
		throw new HttpError(
			400,
			`Date ${date} is outside the ${HISTORY_WINDOW_DAYS}-day history window (oldest: ${new Date(
				Date.parse(`${today}T12:00:00Z`) - HISTORY_WINDOW_DAYS * 86_400_000
			)
				.toISOString()
				.slice(0, 10)}).`
		);
	}
}

/** The market's refusals as HTTP errors; a pending day keeps its own answer (answerPending). */
function translated(err: unknown): unknown {
	if (err instanceof HistoryUnavailableError && !(err instanceof HistoryPendingError))
		return new HttpError(err.status, err.message);
	return err;
}

/** Waits for the market's day, translating its refusals into HTTP errors. */
export async function loadHistory(
	ctx: ServiceContext,
	ticker: string,
	pkg: PackageName,
	category: CanonicalCategory,
	date: string,
	signal?: AbortSignal
): Promise<Buffer> {
	try {
		return await ctx.market.history(ticker, pkg, category, date, signal);
	} catch (err) {
		throw translated(err);
	}
}

/** A complete day's gzip file when the market keeps files (undefined: use loadHistory). */
async function loadHistoryFile(
	ctx: ServiceContext,
	ticker: string,
	pkg: PackageName,
	category: CanonicalCategory,
	date: string,
	signal?: AbortSignal
): Promise<HistoryDayFile | undefined> {
	if (!ctx.market.historyFile) return undefined;
	try {
		return await ctx.market.historyFile(ticker, pkg, category, date, signal);
	} catch (err) {
		throw translated(err);
	}
}

/**
 * Answers a day that is not ready: 504 (the route's "still being generated" status) with where
 * it stands and a Retry-After. Returns false for any other error.
 */
export function answerPending(res: ServerResponse, err: unknown): boolean {
	if (!(err instanceof HistoryPendingError)) return false;
	const { state, position, progress, etaSeconds } = err.pending;
	sendJson(
		res,
		504,
		{
			error: err.message,
			status: state,
			position,
			progress: Math.round(progress * 1000) / 1000,
			eta_seconds: etaSeconds
		},
		{ 'Retry-After': String(etaSeconds), 'Cache-Control': 'no-store' }
	);
	return true;
}

/**
 * The day just produced for a link, kept briefly for its download: the live day grows every
 * second and regenerating it (up to a whole session of engine steps) for the download that
 * follows the redirect would double the wait. Two entries at most, one minute each.
 */
const RECENT_DAYS = 2;
const RECENT_DAY_MS = 60_000;
const recentDays = new Map<string, { day: Buffer; until: number }>();

function rememberDay(ctx: ServiceContext, path: string, day: Buffer): void {
	const key = `${ctx.dataDir}|${path}`;
	recentDays.delete(key);
	recentDays.set(key, { day, until: Date.now() + RECENT_DAY_MS });
	while (recentDays.size > RECENT_DAYS) recentDays.delete(recentDays.keys().next().value as string);
}

function recalledDay(ctx: ServiceContext, path: string): Buffer | undefined {
	const hit = recentDays.get(`${ctx.dataDir}|${path}`);
	return hit && hit.until > Date.now() ? hit.day : undefined;
}

function origin(ctx: ServiceContext, req: IncomingMessage): string {
	return requestOrigin(req, ctx.publicOrigin);
}

/** Answers a history request whose route, access and quota were already checked. */
export async function historyLink(
	ctx: ServiceContext,
	req: IncomingMessage,
	res: ServerResponse,
	params: { ticker: string; package: PackageName; category: CanonicalCategory; date: string },
	query: URLSearchParams,
	signal: AbortSignal
): Promise<void> {
	const { ticker, package: pkg, category, date } = params;
	const path = `${DOWNLOAD_PREFIX}${ticker}/${pkg}/${category}/${date}.json`;
	try {
		// A complete day only has to exist on disk; the live day is kept for its download.
		const file = await loadHistoryFile(ctx, ticker, pkg, category, date, signal);
		if (!file) rememberDay(ctx, path, await loadHistory(ctx, ticker, pkg, category, date, signal));
	} catch (err) {
		if (answerPending(res, err)) return;
		throw err;
	}
	const url = `${origin(ctx, req)}${path}?${ctx.signer.sign(path)}`;
	if (query.has('noredirect')) {
		sendJson(res, 200, { url });
		return;
	}
	const body = Buffer.from(JSON.stringify({ url }));
	res.writeHead(302, { Location: url, 'Content-Type': JSON_TYPE, 'Content-Length': body.length });
	res.end(body);
}

/** Recently compressed days, keyed by the market's buffer (a new buffer means new data). */
const gzipCache = new WeakMap<Buffer, Promise<Buffer>>();

function acceptsGzip(req: IncomingMessage): boolean {
	const header = req.headers['accept-encoding'];
	if (typeof header !== 'string') return false;
	return header.split(',').some((part) => {
		const [coding, ...params] = part.trim().split(';');
		if (coding.trim().toLowerCase() !== 'gzip') return false;
		const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
		return q === undefined || Number(q.slice(2)) > 0;
	});
}

/** GET /download/hist/{ticker}/{package}/{category}/{date}.json?expires=..&signature=.. */
export async function historyDownload(
	ctx: ServiceContext,
	req: IncomingMessage,
	res: ServerResponse,
	pathname: string,
	query: URLSearchParams,
	signal: AbortSignal
): Promise<void> {
	const verdict = ctx.signer.verify(pathname, query);
	if (verdict === 'invalid') throw new HttpError(403, 'Invalid download signature.');
	if (verdict === 'expired') throw new HttpError(403, 'Download link has expired.');
	const parts = pathname.slice(DOWNLOAD_PREFIX.length).split('/');
	const [ticker, pkg, category, name] = parts;
	const date = name?.replace(/\.json$/, '');
	if (parts.length !== 4 || !isTicker(ticker) || !isPackage(pkg) || !isCalendarDate(date)) {
		throw new HttpError(404, 'No such file.');
	}
	const canonical = resolveCategory(pkg, category);
	if (canonical !== category) throw new HttpError(404, 'No such file.');
	const headers: Record<string, string | number> = {
		'Content-Type': 'application/json',
		'Content-Disposition': `attachment; filename="${ticker}_${pkg}_${category}_${date}.json"`,
		Vary: 'Accept-Encoding'
	};
	let recalled = recalledDay(ctx, pathname);
	let dayFile: HistoryDayFile | undefined;
	try {
		if (!recalled) dayFile = await loadHistoryFile(ctx, ticker, pkg, canonical, date, signal);
		if (!recalled && !dayFile)
			recalled = await loadHistory(ctx, ticker, pkg, canonical, date, signal);
	} catch (err) {
		if (answerPending(res, err)) return;
		throw err;
	}
	if (dayFile) {
		await streamDayFile(req, res, dayFile, headers);
		return;
	}
	const day = recalled as Buffer;
	let body = day;
	if (acceptsGzip(req)) {
		let zipped = gzipCache.get(day);
		if (!zipped) {
			zipped = gzip(day, { level: 6 });
			gzipCache.set(day, zipped);
		}
		body = await zipped;
		headers['Content-Encoding'] = 'gzip';
	}
	headers['Content-Length'] = body.length;
	res.writeHead(200, headers);
	res.end(body);
}

/** A day file from disk: as is for a gzip client, decompressed on the fly for the others. */
async function streamDayFile(
	req: IncomingMessage,
	res: ServerResponse,
	file: HistoryDayFile,
	headers: Record<string, string | number>
): Promise<void> {
	const gzipped = acceptsGzip(req);
	if (gzipped) {
		headers['Content-Encoding'] = 'gzip';
		headers['Content-Length'] = file.size;
	}
	res.writeHead(200, headers);
	const source = createReadStream(file.file, { highWaterMark: 256 << 10 });
	try {
		if (gzipped) await pipeline(source, res);
		else await pipeline(source, createGunzip(), res);
	} catch (err) {
		// Headers are out: a client that hung up ends here, a broken file ends the body early.
		if (!res.destroyed) res.destroy(err instanceof Error ? err : undefined);
	}
}
