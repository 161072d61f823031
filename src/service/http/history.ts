/**
 * GET /v2/hist/{ticker}/{package}/{category}/{date}: checks the 90-day window, makes sure the
 * market has the day (waiting for an on-demand simulation, bounded by the market), then answers
 * with a pre-signed download link served by this process: a 302 to it, or with `noredirect`
 * a 200 `{"url": ...}`. The download itself (`/download/hist/...`) needs no key, like an
 * object-store link, and is gzip-encoded when the client accepts gzip.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { gzip as gzipCb } from 'node:zlib';
import { isCalendarDate } from '../../lib/contract/dates';
import { isPackage, resolveCategory } from '../../lib/contract/categories';
import { isTicker } from '../../lib/contract/tickers';
import { HistoryUnavailableError, type CanonicalCategory, type PackageName } from '../source';
import { etDate } from '../quota/windows';
import type { ServiceContext } from './context';
import { daysBetweenIso } from './dates';
import { HttpError, JSON_TYPE, sendJson } from './respond';

const gzip = promisify(gzipCb);

export const HISTORY_WINDOW_DAYS = 90;
export const DOWNLOAD_PREFIX = '/download/hist/';

/** Refuses dates in the future or older than the rolling 90-day window (ET calendar). */
export function checkHistoryWindow(ctx: ServiceContext, date: string): void {
	const today = etDate(ctx.market.now());
	const age = daysBetweenIso(date, today);
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

/** Waits for the market's day file, translating its refusals into HTTP errors. */
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
		if (err instanceof HistoryUnavailableError) throw new HttpError(err.status, err.message);
		throw err;
	}
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
	if (ctx.publicOrigin) return ctx.publicOrigin;
	return `http://${req.headers.host ?? 'localhost'}`;
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
	const day = await loadHistory(ctx, ticker, pkg, category, date, signal);
	const path = `${DOWNLOAD_PREFIX}${ticker}/${pkg}/${category}/${date}.json`;
	rememberDay(ctx, path, day);
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
	const [ticker, pkg, category, file] = parts;
	const date = file?.replace(/\.json$/, '');
	if (parts.length !== 4 || !isTicker(ticker) || !isPackage(pkg) || !isCalendarDate(date)) {
		throw new HttpError(404, 'No such file.');
	}
	const canonical = resolveCategory(pkg, category);
	if (canonical !== category) throw new HttpError(404, 'No such file.');
	const day =
		recalledDay(ctx, pathname) ?? (await loadHistory(ctx, ticker, pkg, canonical, date, signal));
	const headers: Record<string, string | number> = {
		'Content-Type': 'application/json',
		'Content-Disposition': `attachment; filename="${ticker}_${pkg}_${category}_${date}.json"`,
		Vary: 'Accept-Encoding'
	};
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
