/**
 * View state of /chain (the user's own imported chain) in its URL. A share link carries only
 * these choices (weighting, sides, greek, curves, smile expiries, strike range, conventions),
 * never the chain: the recipient sees the same view of a chain they import themselves.
 *
 * `/chain?w=vol&sides=split&greek=charm&smile=2026-11-20,2026-12-18&preset=perfiliev&rate=0.05&iv=mid`
 * Parameters at their default are left out, so the canonical URL of a state is unique.
 */
import {
	CONVENTION_PRESETS,
	IV_SOURCES,
	type ChainConventions,
	type ConventionPreset,
	type IvSource
} from '../analytics';
import { ViewStateError, type Metric } from './viewState';

export const CHAIN_SIDES = ['net', 'split'] as const;
export type ChainSides = (typeof CHAIN_SIDES)[number];
export const CHAIN_GREEKS = ['dex', 'vanna', 'charm'] as const;
export type ChainGreek = (typeof CHAIN_GREEKS)[number];
export const CHAIN_VIEWS = ['smile', 'surface'] as const;
export type ChainVolView = (typeof CHAIN_VIEWS)[number];
/** Strike range of the bar charts, as a fraction of spot either side. */
export const CHAIN_RANGES = [0.05, 0.1, 0.2] as const;

export interface ChainViewState {
	weight: Metric;
	sides: ChainSides;
	greek: ChainGreek;
	/** Draw the G(X) curves without the next expiry / the next monthly. */
	exNext: boolean;
	exMonthly: boolean;
	vol: ChainVolView;
	/** Expiries drawn in the smile view; null = the nearest few. */
	smile: string[] | null;
	range: number;
	conventions: ChainConventions;
}

export const DEFAULT_CHAIN_VIEW: ChainViewState = {
	weight: 'oi',
	sides: 'net',
	greek: 'dex',
	exNext: true,
	exMonthly: true,
	vol: 'smile',
	smile: null,
	range: 0.1,
	conventions: { preset: 'calendar', rate: 0, dividendYield: 0, ivFrom: 'file' }
};

function oneOf<T extends string>(
	name: string,
	raw: string | null,
	allowed: readonly T[],
	fallback: T
): T {
	if (raw === null) return fallback;
	if ((allowed as readonly string[]).includes(raw)) return raw as T;
	throw new ViewStateError(`${name} must be ${allowed.join(' or ')}, got '${raw}'`);
}

/** A rate or yield per 1.00: finite, within +-1 (a typo like 5 for 5% is refused, not used). */
function fraction(name: string, raw: string | null): number {
	if (raw === null) return 0;
	const v = Number(raw);
	if (raw.trim() === '' || !Number.isFinite(v) || Math.abs(v) > 1)
		throw new ViewStateError(`${name} must be a number between -1 and 1 (0.05 = 5%), got '${raw}'`);
	return v;
}

export function parseChainView(params: URLSearchParams): ChainViewState {
	const d = DEFAULT_CHAIN_VIEW;
	const curves = params.get('curves');
	const curveList = curves === null ? null : curves.split(',').filter(Boolean);
	for (const c of curveList ?? [])
		if (c !== 'next' && c !== 'monthly')
			throw new ViewStateError(`curves must list next and/or monthly, got '${c}'`);
	const smileRaw = params.get('smile');
	const smile = smileRaw === null ? null : smileRaw.split(',').filter(Boolean);
	for (const e of smile ?? [])
		if (!/^[\w.-]{1,16}$/.test(e)) throw new ViewStateError(`smile lists expiries, got '${e}'`);
	const range = params.get('range');
	const rangeValue = range === null ? d.range : Number(range) / 100;
	if (!(CHAIN_RANGES as readonly number[]).includes(rangeValue))
		throw new ViewStateError(`range must be 5, 10 or 20 (% of spot), got '${range}'`);
	return {
		weight: oneOf('w', params.get('w'), ['oi', 'vol'] as const, d.weight),
		sides: oneOf('sides', params.get('sides'), CHAIN_SIDES, d.sides),
		greek: oneOf('greek', params.get('greek'), CHAIN_GREEKS, d.greek),
		exNext: curveList === null ? d.exNext : curveList.includes('next'),
		exMonthly: curveList === null ? d.exMonthly : curveList.includes('monthly'),
		vol: oneOf('view', params.get('view'), CHAIN_VIEWS, d.vol),
		smile: smile && smile.length ? smile : null,
		range: rangeValue,
		conventions: {
			preset: oneOf<ConventionPreset>(
				'preset',
				params.get('preset'),
				CONVENTION_PRESETS,
				'calendar'
			),
			rate: fraction('rate', params.get('rate')),
			dividendYield: fraction('q', params.get('q')),
			ivFrom: oneOf<IvSource>('iv', params.get('iv'), IV_SOURCES, 'file')
		}
	};
}

/** The canonical `/chain?...` URL of a state (defaults left out). */
export function chainViewUrl(s: ChainViewState): string {
	const d = DEFAULT_CHAIN_VIEW;
	const p = new URLSearchParams();
	if (s.weight !== d.weight) p.set('w', s.weight);
	if (s.sides !== d.sides) p.set('sides', s.sides);
	if (s.greek !== d.greek) p.set('greek', s.greek);
	if (s.exNext !== d.exNext || s.exMonthly !== d.exMonthly)
		p.set(
			'curves',
			[s.exNext ? 'next' : '', s.exMonthly ? 'monthly' : ''].filter(Boolean).join(',')
		);
	if (s.vol !== d.vol) p.set('view', s.vol);
	if (s.smile && s.smile.length) p.set('smile', s.smile.join(','));
	if (s.range !== d.range) p.set('range', String(Math.round(s.range * 100)));
	const c = s.conventions;
	if (c.preset !== 'calendar') p.set('preset', c.preset);
	if (c.rate !== 0) p.set('rate', String(c.rate));
	if (c.dividendYield !== 0) p.set('q', String(c.dividendYield));
	if (c.ivFrom !== 'file') p.set('iv', c.ivFrom);
	const q = p.toString();
	return q ? `/chain?${q}` : '/chain';
}
