/**
 * The snapshot fast path: /{ticker}/{package}/{category} and its /majors and /maxchange forms.
 * The market computed the payload bytes once for this second; the handler only writes them,
 * so every request within a second gets byte-identical data and no analytics are recomputed.
 */
import type { ServerResponse } from 'node:http';
import type { CanonicalCategory, PackageName } from '../source';
import type { ServiceContext } from './context';
import { HttpError, sendJsonBytes } from './respond';

export type SnapshotView = 'chain' | 'majors' | 'maxchange';

export function snapshot(
	ctx: ServiceContext,
	res: ServerResponse,
	view: SnapshotView,
	ticker: string,
	pkg: PackageName,
	category: CanonicalCategory
): void {
	const m = ctx.market;
	const payload =
		view === 'chain'
			? m.snapshot(ticker, pkg, category)
			: view === 'majors'
				? m.majors(ticker, pkg, category)
				: m.maxchange(ticker, pkg, category);
	if (!payload) throw new HttpError(503, `No ${pkg}/${category} data computed yet for ${ticker}.`);
	sendJsonBytes(res, 200, payload.body);
}
