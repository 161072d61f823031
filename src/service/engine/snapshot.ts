/**
 * Everything one served ticker publishes for one second: the payload of every category (and the
 * majors / max-change views of the GEX categories), built from the engine state of its source
 * chain and formatted for the ticker's view. Bodies are serialised on first use and then reused,
 * so every response within the second is byte-identical and unrequested payloads cost nothing.
 */
import type { CanonicalCategory, Payload } from '../source';
import {
	expiryProfileValue,
	gexChainValue,
	greekProfileValue,
	majorsValue,
	maxChangeValue,
	orderflowValue,
	volumeProfileValue
} from './payloads';
import { GREEK_NAMES, type GreekName, type SubsetName, type TickerDay } from './tickerDay';
import {
	isIdentity,
	viewGexChain,
	viewGreekProfile,
	viewMajors,
	viewMaxChange,
	viewOrderflow,
	viewVolumeProfile,
	type ViewFormat
} from './views';

/** A payload whose JSON bytes are produced once, when first asked for. */
export class SnapshotPayload<T = unknown> implements Payload<T> {
	private bytes?: Buffer;
	constructor(
		readonly timestamp: number,
		readonly value: T
	) {}
	get body(): Buffer {
		if (!this.bytes) this.bytes = Buffer.from(JSON.stringify(this.value));
		return this.bytes;
	}
}

export interface TickerSnapshot {
	timestamp: number;
	spot: number;
	/** key `${package}/${category}` */
	payloads: Map<string, Payload>;
	/** GEX categories only, same keys. */
	majors: Map<string, Payload>;
	maxchange: Map<string, Payload>;
	/** key `${greek}_${YYYYMMDD}`, on 5-second ticks. */
	expiryPayloads?: Map<string, Payload>;
}

const GEX: [CanonicalCategory, SubsetName][] = [
	['gex_full', 'full'],
	['gex_zero', 'zero'],
	['gex_one', 'one']
];

function subsetOf(category: CanonicalCategory): SubsetName {
	return category.endsWith('_full') ? 'full' : category.endsWith('_zero') ? 'zero' : 'one';
}

/** The value of one category at the day's current tick, in the view's format. */
export function categoryValue(
	day: TickerDay,
	category: CanonicalCategory,
	view: ViewFormat
): unknown {
	const id = isIdentity(view);
	if (category === 'orderflow') {
		const v = orderflowValue(day);
		return id && view.ticker === day.ticker ? v : viewOrderflow(v, view);
	}
	const subset = day.subsets[subsetOf(category)];
	if (category.startsWith('gex_')) {
		const v = gexChainValue(day, subset);
		return id && view.ticker === day.ticker ? v : viewGexChain(v, view);
	}
	if (category.startsWith('volume_')) {
		const v = volumeProfileValue(day, subset);
		return id && view.ticker === day.ticker ? v : viewVolumeProfile(v, view);
	}
	const greek = category.split('_')[0] as GreekName;
	const v = greekProfileValue(day, subset, greek);
	return id && view.ticker === day.ticker ? v : viewGreekProfile(v, view);
}

const STATE_GREEKS: CanonicalCategory[] = GREEK_NAMES.flatMap((g) => [
	`${g}_zero` as CanonicalCategory,
	`${g}_one` as CanonicalCategory
]);

/** Every payload of a ticker view at the day's current tick. */
export function buildSnapshot(
	day: TickerDay,
	view: ViewFormat,
	withExpiries: boolean
): TickerSnapshot {
	const timestamp = day.timestampOf(day.tick);
	const payloads = new Map<string, Payload>();
	const majors = new Map<string, Payload>();
	const maxchange = new Map<string, Payload>();
	const same = isIdentity(view) && view.ticker === day.ticker;
	for (const [category, name] of GEX) {
		const subset = day.subsets[name];
		const chain = new SnapshotPayload(timestamp, categoryValue(day, category, view));
		payloads.set(`classic/${category}`, chain);
		payloads.set(`state/${category}`, chain);
		const mj = majorsValue(day, subset);
		const mc = maxChangeValue(day, subset);
		const mjp = new SnapshotPayload(timestamp, same ? mj : viewMajors(mj, view));
		const mcp = new SnapshotPayload(timestamp, same ? mc : viewMaxChange(mc, view));
		majors.set(`classic/${category}`, mjp);
		majors.set(`state/${category}`, mjp);
		maxchange.set(`classic/${category}`, mcp);
		maxchange.set(`state/${category}`, mcp);
	}
	for (const category of [...STATE_GREEKS, 'volume_zero', 'volume_one'] as CanonicalCategory[])
		payloads.set(
			`state/${category}`,
			new SnapshotPayload(timestamp, categoryValue(day, category, view))
		);
	payloads.set(
		'orderflow/orderflow',
		new SnapshotPayload(timestamp, categoryValue(day, 'orderflow', view))
	);
	const snapshot: TickerSnapshot = {
		timestamp,
		spot: (payloads.get('classic/gex_full')?.value as { spot: number }).spot,
		payloads,
		majors,
		maxchange
	};
	if (withExpiries) {
		snapshot.expiryPayloads = new Map();
		day.chain.expiries.forEach((expiry, e) => {
			for (const greek of GREEK_NAMES) {
				const v = expiryProfileValue(day, e, greek);
				snapshot.expiryPayloads?.set(
					`${greek}_${expiry.replaceAll('-', '')}`,
					new SnapshotPayload(timestamp, same ? v : viewGreekProfile(v, view))
				);
			}
		});
	}
	return snapshot;
}
