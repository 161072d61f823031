/**
 * The small routes: ticker lists, package categories, option expiries, futures conversion.
 * Lists come from the market (it knows the universe it simulates) so a `tickers` subset of
 * the market shows up consistently everywhere.
 */
import type { ServerResponse } from 'node:http';
import { categoriesResponse, isPackage } from '../../lib/contract/categories';
import { parseFuturesQuery } from '../../lib/contract/futures';
import { addDays } from '../market/clock';
import { etDate } from '../quota/windows';
import type { ServiceContext } from './context';
import { HttpError, sendJson } from './respond';

export function tickers(ctx: ServiceContext, res: ServerResponse): void {
	sendJson(res, 200, ctx.market.tickers());
}

export function quantTickers(ctx: ServiceContext, res: ServerResponse): void {
	sendJson(res, 200, ctx.market.quantTickers());
}

export function categories(res: ServerResponse, pkg: string | undefined): void {
	if (!isPackage(pkg))
		throw new HttpError(400, 'Unknown package: expected classic, state or orderflow.');
	sendJson(res, 200, categoriesResponse(pkg));
}

/** Expiries from today (ET) through today + 90 calendar days. */
export function expiries(ctx: ServiceContext, res: ServerResponse, ticker: string): void {
	if (!ctx.market.hasTicker(ticker)) throw new HttpError(400, `Unknown option ticker '${ticker}'.`);
	const start = etDate(ctx.market.now());
	const end = addDays(start, 90);
	const list = ctx.market.expiries(ticker).filter((d) => d >= start && d <= end);
	sendJson(res, 200, { ticker, start_date: start, end_date: end, expiries: list });
}

/** Validates the pair; the caller spends the quota only for an answerable request. */
export function futuresConversion(ctx: ServiceContext, query: URLSearchParams) {
	const parsed = parseFuturesQuery(query);
	if (!parsed.ok) throw new HttpError(400, parsed.error);
	const conversion = ctx.market.futuresConversion(parsed.ticker, parsed.future);
	if (!conversion) {
		throw new HttpError(400, `Unsupported ticker/future pair: ${parsed.ticker}/${parsed.future}.`);
	}
	return conversion;
}
