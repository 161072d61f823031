/**
 * GET /hist/eod/{ticker} (with or without /v2): the newest completed session as a zip named
 * `eod_report_<TICKER>_<YYYY-MM-DD>.zip` holding 15 gzip JSON arrays, one per package and
 * category, at `<T>/<package>/<category>/<date>_<T>_<package>_<category>.json.gz`.
 * A report is built once per ticker and day and kept in the data directory (temp + rename),
 * so later requests stream the file.
 */
import { createReadStream } from 'node:fs';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCb } from 'node:zlib';
import { zipSync, type Zippable } from 'fflate';
import { eodCategories, PACKAGES } from '../../lib/contract/categories';
import { HistoryUnavailableError, type CanonicalCategory, type PackageName } from '../source';
import type { ServiceContext } from './context';
import { loadHistory } from './history';
import { HttpError } from './respond';

const gzip = promisify(gzipCb);

export function eodFileName(ticker: string, date: string): string {
	return `eod_report_${ticker}_${date}.zip`;
}

/** Member paths of a report, in the order they are written. */
export function eodMembers(ticker: string, date: string): string[] {
	return PACKAGES.flatMap((pkg) =>
		eodCategories(pkg).map((c) => `${ticker}/${pkg}/${c}/${date}_${ticker}_${pkg}_${c}.json.gz`)
	);
}

const building = new Map<string, Promise<string>>();

/** Every member's day: one engine pass when the market offers it, else one per category. */
async function loadDays(
	ctx: ServiceContext,
	ticker: string,
	items: { pkg: PackageName; category: CanonicalCategory }[],
	date: string,
	signal: AbortSignal
): Promise<Map<string, Buffer>> {
	if (ctx.market.historyMany) {
		try {
			return await ctx.market.historyMany(ticker, items, date, signal);
		} catch (err) {
			if (err instanceof HistoryUnavailableError) throw new HttpError(err.status, err.message);
			throw err;
		}
	}
	const days = new Map<string, Buffer>();
	for (const { pkg, category } of items) {
		days.set(`${pkg}/${category}`, await loadHistory(ctx, ticker, pkg, category, date, signal));
	}
	return days;
}

async function buildReport(
	ctx: ServiceContext,
	ticker: string,
	date: string,
	signal: AbortSignal
): Promise<string> {
	const dir = join(ctx.dataDir, 'eod');
	const file = join(dir, eodFileName(ticker, date));
	try {
		await stat(file);
		return file;
	} catch {
		// not built yet
	}
	const tree: Zippable = {};
	// Session close as the members' modification time, so the same day zips to the same bytes.
	const mtime = new Date(`${date}T21:00:00Z`);
	const items = PACKAGES.flatMap((pkg) =>
		eodCategories(pkg).map((category) => ({ pkg, category }))
	);
	const days = await loadDays(ctx, ticker, items, date, signal);
	for (const { pkg, category } of items) {
		const member = await gzip(days.get(`${pkg}/${category}`)!, { level: 6 });
		const name = `${date}_${ticker}_${pkg}_${category}.json.gz`;
		// Already gzip: stored without a second compression.
		tree[`${ticker}/${pkg}/${category}/${name}`] = [member, { level: 0, mtime }];
	}
	const zip = zipSync(tree, { level: 0, mtime });
	await mkdir(dir, { recursive: true });
	const tmp = `${file}.${process.pid}.tmp`;
	await writeFile(tmp, zip);
	await rename(tmp, file);
	return file;
}

export async function eodReport(
	ctx: ServiceContext,
	res: ServerResponse,
	ticker: string,
	signal: AbortSignal
): Promise<void> {
	if (!ctx.market.hasTicker(ticker)) throw new HttpError(400, `Unknown ticker '${ticker}'.`);
	const date = ctx.market.lastCompletedSession();
	const key = `${ctx.dataDir}|${ticker}/${date}`;
	let pending = building.get(key);
	if (!pending) {
		// Built under its own signal: one client hanging up must not cancel a shared build.
		pending = buildReport(ctx, ticker, date, new AbortController().signal);
		building.set(key, pending);
		void pending.finally(() => building.delete(key)).catch(() => undefined);
	}
	const file = await pending;
	if (signal.aborted) return;
	const { size } = await stat(file);
	res.writeHead(200, {
		'Content-Type': 'application/zip',
		'Content-Length': size,
		'Content-Disposition': `attachment; filename="${eodFileName(ticker, date)}"`
	});
	createReadStream(file).pipe(res);
}
