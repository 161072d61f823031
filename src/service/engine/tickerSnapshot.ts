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
	type GexChainValue,
	greekProfileValue,
	majorsValue,
	maxChangeValue,
	orderflowValue,
	volumeProfileValue
} from './categoryPayloads';
import { expiryGexValue, expiryOrderflowValue } from './expiryPayloads';
import { freezeExpiryState } from './expiryState';
import {
	DEFAULT_PAYLOAD_PROFILE,
	observedGreekProfile,
	observedStateChain,
	observedStateMajors,
	type PayloadProfile
} from './profiles';
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

/**
 * A payload built on first use: its value from the engine state of its own tick, its bytes from
 * that value, both once. Readers (REST handlers, tick listeners) use it synchronously within the
 * second it belongs to; reading an unbuilt payload after the engine moved on is a bug and throws.
 */
export class SnapshotPayload<T = unknown> implements Payload<T> {
	private built?: T;
	private bytes?: Buffer;
	constructor(
		readonly timestamp: number,
		private readonly day: TickerDay,
		private readonly tick: number,
		private readonly build: () => T
	) {}
	get value(): T {
		if (this.built === undefined) {
			if (this.day.tick !== this.tick)
				throw new Error(
					`payload of ${this.day.ticker} tick ${this.tick} read after the engine moved to tick ${this.day.tick}`
				);
			this.built = this.build();
		}
		return this.built;
	}
	get body(): Buffer {
		if (!this.bytes) this.bytes = Buffer.from(JSON.stringify(this.value));
		return this.bytes;
	}
}

/** A payload built on first use from data that no longer changes. */
class FrozenPayload<T = unknown> implements Payload<T> {
	private built?: T;
	private bytes?: Buffer;
	constructor(
		readonly timestamp: number,
		private readonly build: () => T
	) {}
	get value(): T {
		if (this.built === undefined) this.built = this.build();
		return this.built;
	}
	get body(): Buffer {
		if (!this.bytes) this.bytes = Buffer.from(JSON.stringify(this.value));
		return this.bytes;
	}
}

/** Base (untransformed) values of the day's current tick, shared by all views of the chain. */
const baseValues = new WeakMap<TickerDay, { tick: number; values: Map<string, unknown> }>();

function memo<T>(day: TickerDay, key: string, build: () => T): T {
	let entry = baseValues.get(day);
	if (!entry || entry.tick !== day.tick) {
		entry = { tick: day.tick, values: new Map() };
		baseValues.set(day, entry);
	}
	if (!entry.values.has(key)) entry.values.set(key, build());
	return entry.values.get(key) as T;
}

export interface TickerSnapshot {
	timestamp: number;
	spot: number;
	/** key `${package}/${category}` */
	payloads: Map<string, Payload>;
	/** GEX categories only, same keys. */
	majors: Map<string, Payload>;
	maxchange: Map<string, Payload>;
	/**
	 * key `${greek}_${YYYYMMDD}`, `gex_${YYYYMMDD}` (`state_gex_${YYYYMMDD}`: the State shape when it
	 * differs), `orderflow_${YYYYMMDD}`, on 5-second ticks.
	 */
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

/**
 * The value of one category at the day's current tick, in the view's format. Greek profiles take
 * the payload profile's shape (they are State-only); the GEX chains are the classic shape here,
 * buildSnapshot gives the State ones theirs.
 */
export function categoryValue(
	day: TickerDay,
	category: CanonicalCategory,
	view: ViewFormat,
	profile: PayloadProfile = DEFAULT_PAYLOAD_PROFILE
): unknown {
	const same = isIdentity(view) && view.ticker === day.ticker;
	if (category === 'orderflow') {
		const v = memo(day, category, () => orderflowValue(day));
		return same ? v : viewOrderflow(v, view);
	}
	const subset = day.subsets[subsetOf(category)];
	if (category.startsWith('gex_')) {
		const v = memo(day, category, () => gexChainValue(day, subset));
		return same ? v : viewGexChain(v, view);
	}
	if (category.startsWith('volume_')) {
		const v = memo(day, category, () => volumeProfileValue(day, subset));
		return same ? v : viewVolumeProfile(v, view);
	}
	const greek = category.split('_')[0] as GreekName;
	if (same && profile === 'observed')
		return memo(day, `${category}/observed`, () => greekProfileValue(day, subset, greek, true));
	const v = memo(day, category, () => greekProfileValue(day, subset, greek));
	const viewed = same ? v : viewGreekProfile(v, view);
	return profile === 'observed' ? observedGreekProfile(viewed) : viewed;
}

const STATE_GREEKS: CanonicalCategory[] = GREEK_NAMES.flatMap((g) => [
	`${g}_zero` as CanonicalCategory,
	`${g}_one` as CanonicalCategory
]);

/** A lazy map: `get` builds the payload of a known key on first use. */
class LazyPayloads extends Map<string, Payload> {
	constructor(private readonly factories: Map<string, () => Payload>) {
		super();
	}
	override get(key: string): Payload | undefined {
		let p = super.get(key);
		if (!p) {
			const make = this.factories.get(key);
			if (!make) return undefined;
			p = make();
			super.set(key, p);
		}
		return p;
	}
	override has(key: string): boolean {
		return this.factories.has(key);
	}
}

/** Every payload of a ticker view at the day's current tick (each built on first use). */
export function buildSnapshot(
	day: TickerDay,
	view: ViewFormat,
	withExpiries: boolean,
	profile: PayloadProfile = DEFAULT_PAYLOAD_PROFILE
): TickerSnapshot {
	const observed = profile === 'observed';
	const timestamp = day.timestampOf(day.tick);
	const tick = day.tick;
	const same = isIdentity(view) && view.ticker === day.ticker;
	const lazy = <T>(build: () => T) => new SnapshotPayload<T>(timestamp, day, tick, build);
	const payloads = new Map<string, Payload>();
	const majors = new Map<string, Payload>();
	const maxchange = new Map<string, Payload>();
	for (const [category, name] of GEX) {
		const subset = day.subsets[name];
		const chain = lazy(() => categoryValue(day, category, view) as GexChainValue);
		payloads.set(`classic/${category}`, chain);
		// The observed State chain has no OI side: its own payload, built from the classic one.
		payloads.set(
			`state/${category}`,
			observed ? lazy(() => observedStateChain(chain.value)) : chain
		);
		const mjp = lazy(() => {
			const v = memo(day, `majors/${category}`, () => majorsValue(day, subset));
			return same ? v : viewMajors(v, view);
		});
		const mcp = lazy(() => {
			const v = memo(day, `maxchange/${category}`, () => maxChangeValue(day, subset));
			return same ? v : viewMaxChange(v, view);
		});
		majors.set(`classic/${category}`, mjp);
		majors.set(`state/${category}`, observed ? lazy(() => observedStateMajors(mjp.value)) : mjp);
		maxchange.set(`classic/${category}`, mcp);
		maxchange.set(`state/${category}`, mcp);
	}
	for (const category of [...STATE_GREEKS, 'volume_zero', 'volume_one'] as CanonicalCategory[])
		payloads.set(
			`state/${category}`,
			lazy(() => categoryValue(day, category, view, profile))
		);
	payloads.set(
		'orderflow/orderflow',
		lazy(() => categoryValue(day, 'orderflow', view))
	);
	const spot = Math.round((day.spot * view.scale + view.levelShift) * 100) / 100;
	const snapshot: TickerSnapshot = { timestamp, spot, payloads, majors, maxchange };
	if (withExpiries) {
		// The 5-second feed stays the latest for five seconds: build it from a frozen copy.
		const frozen = memo(day, 'expiry-state', () => freezeExpiryState(day));
		const factories = new Map<string, () => Payload>();
		day.chain.expiries.forEach((expiry, e) => {
			const compact = expiry.replaceAll('-', '');
			// One GEX chain serves both the classic and the state `gex_YYYYMMDD` groups.
			factories.set(
				`gex_${compact}`,
				() =>
					new FrozenPayload(timestamp, () => {
						const v = expiryGexValue(frozen, e);
						return same ? v : viewGexChain(v, view);
					})
			);
			// The State hub's explicit-expiry chain in the observed shape (OI side 0).
			if (observed) {
				factories.set(
					`state_gex_${compact}`,
					() =>
						new FrozenPayload(timestamp, () => {
							const v = expiryGexValue(frozen, e);
							return observedStateChain(same ? v : viewGexChain(v, view));
						})
				);
			}
			factories.set(
				`orderflow_${compact}`,
				() =>
					new FrozenPayload(timestamp, () => {
						const v = expiryOrderflowValue(frozen, e);
						return same ? v : viewOrderflow(v, view);
					})
			);
			for (const greek of GREEK_NAMES) {
				factories.set(
					`${greek}_${expiry.replaceAll('-', '')}`,
					() =>
						new FrozenPayload(timestamp, () => {
							const v = expiryProfileValue(frozen, e, greek);
							const viewed = same ? v : viewGreekProfile(v, view);
							return observed ? observedGreekProfile(viewed) : viewed;
						})
				);
			}
		});
		snapshot.expiryPayloads = new LazyPayloads(factories);
	}
	return snapshot;
}
