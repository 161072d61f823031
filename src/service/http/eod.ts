/**
 * GET /hist/eod/{ticker} (with or without /v2): the newest completed session as a zip named
 * `eod_report_<TICKER>_<YYYY-MM-DD>.zip` holding 15 gzip JSON arrays, one per package and
 * category, at `<T>/<package>/<category>/<date>_<T>_<package>_<category>.json.gz`.
 * The members are the market's gzip day files (one generation per ticker-day, shared with the
 * history route), streamed as stored zip entries straight from disk: the archive is never held
 * in memory nor kept as a second copy.
 */
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { crc32, gzip as gzipCb } from 'node:zlib';
import { eodCategories, PACKAGES } from '../../lib/contract/categories';
import { HistoryPendingError, HistoryUnavailableError, type HistoryDayFile } from '../source';
import type { ServiceContext } from './context';
import { answerPending, loadHistory } from './history';
import { HttpError } from './respond';
import { storedZip, storedZipSize, type StoredMember } from './storedZip';

const gzip = promisify(gzipCb);

export function eodFileName(ticker: string, date: string): string {
	return `eod_report_${ticker}_${date}.zip`;
}

/** The report's members, in the order they are written. */
function eodItems(ticker: string, date: string) {
	return PACKAGES.flatMap((pkg) =>
		eodCategories(pkg).map((category) => ({
			pkg,
			category,
			name: `${ticker}/${pkg}/${category}/${date}_${ticker}_${pkg}_${category}.json.gz`
		}))
	);
}

/** Member paths of a report, in the order they are written. */
export function eodMembers(ticker: string, date: string): string[] {
	return eodItems(ticker, date).map((i) => i.name);
}

/** Every member's gzip bytes: the market's day files, or (a market without files) its days. */
async function loadMembers(
	ctx: ServiceContext,
	ticker: string,
	date: string,
	signal: AbortSignal
): Promise<StoredMember[]> {
	const items = eodItems(ticker, date);
	if (ctx.market.historyDayFiles) {
		let files: Map<string, HistoryDayFile>;
		try {
			files = await ctx.market.historyDayFiles(ticker, items, date, signal);
		} catch (err) {
			if (err instanceof HistoryUnavailableError && !(err instanceof HistoryPendingError))
				throw new HttpError(err.status, err.message);
			throw err;
		}
		return items.map(({ pkg, category, name }) => {
			const f = files.get(`${pkg}/${category}`) as HistoryDayFile;
			return { name, source: { file: f.file }, size: f.size, crc: f.crc };
		});
	}
	const members: StoredMember[] = [];
	for (const { pkg, category, name } of items) {
		const bytes = await gzip(await loadHistory(ctx, ticker, pkg, category, date, signal));
		members.push({ name, source: { bytes }, size: bytes.length, crc: crc32(bytes) >>> 0 });
	}
	return members;
}

export async function eodReport(
	ctx: ServiceContext,
	res: ServerResponse,
	ticker: string,
	signal: AbortSignal
): Promise<void> {
	if (!ctx.market.hasTicker(ticker)) throw new HttpError(400, `Unknown ticker '${ticker}'.`);
	const date = ctx.market.lastCompletedSession();
	let members: StoredMember[];
	try {
		members = await loadMembers(ctx, ticker, date, signal);
	} catch (err) {
		if (answerPending(res, err)) return;
		throw err;
	}
	if (signal.aborted) return;
	res.writeHead(200, {
		'Content-Type': 'application/zip',
		'Content-Length': storedZipSize(members),
		'Content-Disposition': `attachment; filename="${eodFileName(ticker, date)}"`
	});
	// Session close as the members' modification time, so the same day zips to the same bytes.
	const archive = Readable.from(storedZip(members, new Date(`${date}T21:00:00Z`)));
	try {
		await pipeline(archive, res);
	} catch (err) {
		// Headers are out: a client that hung up, or a day file that changed under us, ends the
		// response early (the client sees a short body against Content-Length).
		if (!res.destroyed) res.destroy(err instanceof Error ? err : undefined);
	}
}
