/**
 * A feed: one ticker's data of one package and category (`SPX` classic `gex_full`), whether it
 * arrives streamed (a WebSocket group) or polled (a REST snapshot route). Every name the project
 * gives a feed is built and read here, and nowhere else:
 *
 *   group      `SPX_classic_gex_full`     the WebSocket group (relay, hubs, the browser's subscribe)
 *   route      `SPX/classic/gex_full`     the REST snapshot path under /api (proxy, polling)
 *   stream     `classic_gex_full`         the recording's stream name next to its ticker (recorder)
 *
 * and back again (feedOfGroup, feedOfRoute, feedOfStream). Spot and explicit-expiry groups are
 * no feeds of their own (spot rides along with every streamed feed of its ticker; an expiry group
 * has no REST route) but they are recorded, so their stream names are read here too
 * (streamOfGroup, groupOfStream). The group grammar itself (which names are valid, which hub
 * carries them) lives in ./hubs; a group string built by hand anywhere else fails
 * src/lib/contract/feeds.test.ts.
 */
import {
	isPackage,
	PACKAGE_CATEGORIES,
	resolveCategory,
	type CanonicalCategory,
	type PackageName
} from './categories';
import { parseGroup, spotGroupName } from './hubs';
import { isStreamTicker } from './tickers';

export interface Feed {
	ticker: string;
	package: PackageName;
	category: CanonicalCategory;
}

/** A feed value (no check: the callers' types already say the package and category). */
export function feedOf(ticker: string, pkg: PackageName, category: CanonicalCategory): Feed {
	return { ticker, package: pkg, category };
}

/** `SPX_classic_gex_full`: the WebSocket group of the feed (and its key in maps and sets). */
export function feedGroup(feed: Feed): string {
	return `${feed.ticker}_${feed.package}_${feed.category}`;
}

/** `SPX/classic/gex_full`: the REST snapshot path of the feed, relative to /api or /v2. */
export function feedRoute(feed: Feed): string {
	return `${feed.ticker}/${feed.package}/${feed.category}`;
}

/** `classic_gex_full`: the recording's stream name of the feed (the file next to its ticker). */
export function feedStream(feed: Feed): string {
	return `${feed.package}_${feed.category}`;
}

/** The spot group that comes with every streamed feed of a ticker (`SPX_spot`). */
export function spotGroupOf(ticker: string): string {
	return spotGroupName(ticker);
}

/** `SPX_classic_gex_full` -> the feed; undefined for spot, expiry and invalid groups. */
export function feedOfGroup(group: string): Feed | undefined {
	const parsed = parseGroup(group);
	if (!parsed.ok || parsed.group.kind !== 'analytics') return undefined;
	const { ticker, package: pkg, category } = parsed.group;
	return { ticker, package: pkg, category };
}

/**
 * `SPX/classic/gex_full` (or an alias the REST route accepts, `SPX/classic/full`) -> the feed;
 * undefined when the path is no snapshot route of a known ticker.
 */
export function feedOfRoute(path: string): Feed | undefined {
	const m = /^([A-Z0-9_^]+)\/([a-z]+)\/([a-z0-9_]+)$/.exec(path);
	if (!m || !isStreamTicker(m[1]) || !isPackage(m[2])) return undefined;
	const category = resolveCategory(m[2], m[3]);
	return category ? { ticker: m[1], package: m[2], category } : undefined;
}

/** (`SPX`, `classic_gex_full`) -> the feed; undefined for spot, expiry and unknown streams. */
export function feedOfStream(ticker: string, stream: string): Feed | undefined {
	const m = /^(classic|state|orderflow)_([a-z0-9_]+)$/.exec(stream);
	if (!m || !isStreamTicker(ticker) || !isPackage(m[1])) return undefined;
	const category = m[2] as CanonicalCategory;
	return PACKAGE_CATEGORIES[m[1]].includes(category)
		? { ticker, package: m[1], category }
		: undefined;
}

const STREAM = /^[a-z0-9_]{1,48}$/;

/**
 * The recording stream of any valid group: `SPX_classic_gex_full` -> (`SPX`,
 * `classic_gex_full`), `SPX_spot` -> (`SPX`, `spot`), `SPX_classic_gex_20260717` -> (`SPX`,
 * `classic_gex_20260717`). Undefined for a name that is no valid group.
 */
export function streamOfGroup(group: string): { ticker: string; stream: string } | undefined {
	const parsed = parseGroup(group);
	if (!parsed.ok) return undefined;
	const ticker = parsed.group.ticker;
	const stream = parsed.group.kind === 'spot' ? 'spot' : group.slice(ticker.length + 1);
	return STREAM.test(stream) ? { ticker, stream } : undefined;
}

/** The group a recorded stream came from: (`SPX`, `spot`) -> `SPX_spot`; the inverse of streamOfGroup. */
export function groupOfStream(ticker: string, stream: string): string {
	return stream === 'spot' ? spotGroupName(ticker) : `${ticker}_${stream}`;
}
