/**
 * Alert rules: what a trader asks to be told about, per ticker, and their validation.
 *
 * Pure (contract imports only), so the rules page, the server's engine, the database's rows and
 * an imported export all read rules through the same checks. A bad rule is a clear message naming the
 * field, never an exception that takes the other rules with it.
 *
 * Kinds (see ./README.md for the file schema):
 * - `cross`: spot crosses a level (zero gamma, a major, the max-change strike of a lookback, or
 *   a fixed price), up, down or either way.
 * - `level_move`: zero gamma or a major moves by more than `points` from where it was when the
 *   rule last fired (or was first seen).
 * - `max_change`: the max change of a lookback reaches `size` in absolute value.
 * - `gex_sign`: net GEX (by volume or OI) changes sign.
 * - `flow_cross`: the orderflow's cumulative DEX or GEX flow crosses `value`.
 */
import { categoryName } from '../contract/categoryNames';
import { feedGroup, feedOf, type Feed } from '../contract/feeds';
import type { Outcome } from '../contract/outcome';
import { isStreamTicker } from '../contract/tickers';

export const RULE_KINDS = ['cross', 'level_move', 'max_change', 'gex_sign', 'flow_cross'] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

/** Levels of a Classic/State chain that spot can cross or that can move. */
export const CHAIN_LEVELS = [
	'zero_gamma',
	'major_pos_vol',
	'major_neg_vol',
	'major_pos_oi',
	'major_neg_oi'
] as const;
export type ChainLevel = (typeof CHAIN_LEVELS)[number];
export const CROSS_LEVELS = [...CHAIN_LEVELS, 'max_change', 'price'] as const;
export type CrossLevel = (typeof CROSS_LEVELS)[number];

/** Max change lookbacks, in the order of the chain's `max_priors` pairs. */
export const LOOKBACKS = ['current', 'one', 'five', 'ten', 'fifteen', 'thirty'] as const;
export type Lookback = (typeof LOOKBACKS)[number];

export const DIRECTIONS = ['up', 'down', 'either'] as const;
export type Direction = (typeof DIRECTIONS)[number];

export const GEX_PACKAGES = ['classic', 'state'] as const;
export type GexPackage = (typeof GEX_PACKAGES)[number];
export const GEX_CATEGORIES = ['gex_full', 'gex_zero', 'gex_one'] as const;
export type GexCategoryName = (typeof GEX_CATEGORIES)[number];

export const FLOWS = ['dex', 'gex'] as const;
export type Flow = (typeof FLOWS)[number];
export const EXPIRIES = ['zero', 'one'] as const;
export type Expiry = (typeof EXPIRIES)[number];

export const LEVEL_LABELS: Record<CrossLevel, string> = {
	zero_gamma: 'zero gamma',
	major_pos_vol: 'major positive (vol)',
	major_neg_vol: 'major negative (vol)',
	major_pos_oi: 'major positive (OI)',
	major_neg_oi: 'major negative (OI)',
	max_change: 'max change strike',
	price: 'price'
};

export const LOOKBACK_LABELS: Record<Lookback, string> = {
	current: 'current',
	one: '1 min',
	five: '5 min',
	ten: '10 min',
	fifteen: '15 min',
	thirty: '30 min'
};

/** Active window: ET wall times `HH:MM`, optionally on NYSE session days only. */
export interface RuleWindow {
	start: string;
	end: string;
	marketDays: boolean;
}

interface RuleBase {
	id: string;
	name: string;
	ticker: string;
	paused: boolean;
	/** Seconds after a firing during which the rule stays quiet. */
	cooldownSeconds: number;
	window: RuleWindow | null;
	/** Webhook ids this rule posts to; null = every webhook. */
	webhooks: string[] | null;
}

/** The chain a rule reads its levels (and spot) from. */
export interface ChainSource {
	package: GexPackage;
	category: GexCategoryName;
}

export interface CrossRule extends RuleBase, ChainSource {
	kind: 'cross';
	level: CrossLevel;
	/** The fixed level of `level: 'price'`. */
	price: number | null;
	/** The max change lookback of `level: 'max_change'`. */
	lookback: Lookback;
	direction: Direction;
	/** Points spot must clear beyond the level before the side counts as changed. */
	hysteresis: number;
}

export interface LevelMoveRule extends RuleBase, ChainSource {
	kind: 'level_move';
	level: ChainLevel;
	points: number;
}

export interface MaxChangeRule extends RuleBase, ChainSource {
	kind: 'max_change';
	lookback: Lookback;
	/** Absolute max change value that fires. */
	size: number;
	/** The value must fall below `size - hysteresis` before the rule re-arms. */
	hysteresis: number;
}

export interface GexSignRule extends RuleBase, ChainSource {
	kind: 'gex_sign';
	basis: 'vol' | 'oi';
	/** |net GEX| must exceed this for a sign to count (noise around 0 is ignored). */
	hysteresis: number;
}

export interface FlowCrossRule extends RuleBase {
	kind: 'flow_cross';
	flow: Flow;
	expiry: Expiry;
	value: number;
	direction: Direction;
	hysteresis: number;
}

export type AlertRule = CrossRule | LevelMoveRule | MaxChangeRule | GexSignRule | FlowCrossRule;

export const WEBHOOK_FORMATS = ['json', 'discord', 'slack', 'ntfy'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

export interface Webhook {
	id: string;
	name: string;
	url: string;
	format: WebhookFormat;
	paused: boolean;
}

export type Parsed<T> = Outcome<{ value: T }>;

export const DEFAULT_COOLDOWN_SECONDS = 300;
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

class RuleError extends Error {}

type Raw = Record<string, unknown>;

function fail(message: string): never {
	throw new RuleError(message);
}

function text(raw: Raw, field: string, fallback?: string): string {
	const v = raw[field];
	if (v === undefined || v === null || v === '') {
		if (fallback !== undefined) return fallback;
		fail(`${field} is missing`);
	}
	if (typeof v !== 'string') fail(`${field} must be text, got ${JSON.stringify(v)}`);
	return v.trim();
}

/** A number, also from form text ("6850.5"); "abc" or Infinity is an error naming the field. */
function number(
	raw: Raw,
	field: string,
	opts: { fallback?: number; min?: number; max?: number } = {}
): number {
	const v = raw[field];
	if (v === undefined || v === null || v === '') {
		if (opts.fallback !== undefined) return opts.fallback;
		fail(`${field} is missing`);
	}
	const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v.trim()) : Number.NaN;
	if (!Number.isFinite(n)) fail(`${field} must be a number, got ${JSON.stringify(v)}`);
	if (opts.min !== undefined && n < opts.min) fail(`${field} must be at least ${opts.min}`);
	if (opts.max !== undefined && n > opts.max) fail(`${field} must be at most ${opts.max}`);
	return n;
}

function choice<const T extends readonly string[]>(
	raw: Raw,
	field: string,
	options: T,
	fallback?: T[number]
): T[number] {
	const v = raw[field];
	if ((v === undefined || v === null || v === '') && fallback !== undefined) return fallback;
	if (typeof v !== 'string' || !options.includes(v)) {
		fail(`${field} must be one of ${options.join(', ')}, got ${JSON.stringify(v)}`);
	}
	return v;
}

function flag(raw: Raw, field: string): boolean {
	const v = raw[field];
	if (v === undefined || v === null || v === false || v === 'false' || v === '') return false;
	if (v === true || v === 'true' || v === 'on') return true;
	fail(`${field} must be true or false, got ${JSON.stringify(v)}`);
}

function parseWindow(v: unknown): RuleWindow | null {
	if (v === undefined || v === null) return null;
	if (typeof v !== 'object' || Array.isArray(v)) fail('window must be an object or null');
	const w = v as Raw;
	const start = text(w, 'start', '09:30');
	const end = text(w, 'end', '16:00');
	if (!HHMM.test(start)) fail(`window.start must be HH:MM (ET), got ${JSON.stringify(start)}`);
	if (!HHMM.test(end)) fail(`window.end must be HH:MM (ET), got ${JSON.stringify(end)}`);
	if (end <= start) fail(`window.end ${end} must be after window.start ${start}`);
	return { start, end, marketDays: w.marketDays === undefined ? true : flag(w, 'marketDays') };
}

/** Webhooks one rule may post to (each firing is one delivery per webhook). */
export const MAX_WEBHOOKS_PER_RULE = 5;
/** Webhooks in all (a rule on "every webhook" posts to each, so this is bounded too). */
export const MAX_WEBHOOKS = 20;

function parseWebhookIds(v: unknown): string[] | null {
	if (v === undefined || v === null) return null;
	if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || !ID.test(x))) {
		fail('webhooks must be a list of webhook ids, or null for every webhook');
	}
	const ids = [...new Set(v as string[])];
	if (ids.length > MAX_WEBHOOKS_PER_RULE) {
		fail(`a rule posts to at most ${MAX_WEBHOOKS_PER_RULE} webhooks, got ${ids.length}`);
	}
	return ids;
}

/** The chain source fields (default: the Classic full chain). */
function source(raw: Raw): ChainSource {
	return {
		package: choice(raw, 'package', GEX_PACKAGES, 'classic'),
		category: choice(raw, 'category', GEX_CATEGORIES, 'gex_full')
	};
}

function parseRuleOrThrow(input: unknown): AlertRule {
	if (typeof input !== 'object' || input === null || Array.isArray(input)) {
		fail('a rule must be an object');
	}
	const raw = input as Raw;
	const id = text(raw, 'id');
	if (!ID.test(id)) fail(`id must be 1-64 letters, digits, _ or -, got ${JSON.stringify(id)}`);
	const ticker = text(raw, 'ticker').toUpperCase();
	if (!isStreamTicker(ticker)) fail(`unknown ticker ${JSON.stringify(ticker)}`);
	const kind = choice(raw, 'kind', RULE_KINDS);
	const base: RuleBase = {
		id,
		name: text(raw, 'name', '').slice(0, 120),
		ticker,
		paused: flag(raw, 'paused'),
		cooldownSeconds: number(raw, 'cooldownSeconds', {
			fallback: DEFAULT_COOLDOWN_SECONDS,
			min: 0,
			max: 7 * 86_400
		}),
		window: parseWindow(raw.window),
		webhooks: parseWebhookIds(raw.webhooks)
	};
	const hysteresis = () => number(raw, 'hysteresis', { fallback: 0, min: 0 });
	switch (kind) {
		case 'cross': {
			const level = choice(raw, 'level', CROSS_LEVELS);
			return {
				...base,
				...source(raw),
				kind,
				level,
				price: level === 'price' ? number(raw, 'price', { min: 0 }) : null,
				lookback: choice(raw, 'lookback', LOOKBACKS, 'current'),
				direction: choice(raw, 'direction', DIRECTIONS, 'either'),
				hysteresis: hysteresis()
			};
		}
		case 'level_move':
			return {
				...base,
				...source(raw),
				kind,
				level: choice(raw, 'level', CHAIN_LEVELS),
				points: number(raw, 'points', { min: 0 })
			};
		case 'max_change':
			return {
				...base,
				...source(raw),
				kind,
				lookback: choice(raw, 'lookback', LOOKBACKS, 'current'),
				size: number(raw, 'size', { min: 0 }),
				hysteresis: hysteresis()
			};
		case 'gex_sign':
			return {
				...base,
				...source(raw),
				kind,
				basis: choice(raw, 'basis', ['vol', 'oi'] as const, 'vol'),
				hysteresis: hysteresis()
			};
		case 'flow_cross':
			return {
				...base,
				kind,
				flow: choice(raw, 'flow', FLOWS),
				expiry: choice(raw, 'expiry', EXPIRIES, 'zero'),
				value: number(raw, 'value'),
				direction: choice(raw, 'direction', DIRECTIONS, 'either'),
				hysteresis: hysteresis()
			};
	}
}

/** Validates one rule (from the file or a form); defaults fill what is left out. */
export function parseRule(input: unknown): Parsed<AlertRule> {
	try {
		return { ok: true, value: parseRuleOrThrow(input) };
	} catch (e) {
		if (e instanceof RuleError) return { ok: false, error: e.message };
		throw e;
	}
}

/** A webhook: an http(s) URL without credentials, in one of the four message shapes. */
export function parseWebhook(input: unknown): Parsed<Webhook> {
	try {
		if (typeof input !== 'object' || input === null || Array.isArray(input)) {
			fail('a webhook must be an object');
		}
		const raw = input as Raw;
		const id = text(raw, 'id');
		if (!ID.test(id)) fail(`id must be 1-64 letters, digits, _ or -, got ${JSON.stringify(id)}`);
		const href = text(raw, 'url');
		let url: URL;
		try {
			url = new URL(href);
		} catch {
			fail(`url is not a URL: ${JSON.stringify(href)}`);
		}
		if (url.protocol !== 'http:' && url.protocol !== 'https:') {
			fail(`url must be http(s), got ${url.protocol.replace(/:$/, '')}`);
		}
		if (url.username || url.password) fail('url must not carry a user name or password');
		return {
			ok: true,
			value: {
				id,
				name: text(raw, 'name', '').slice(0, 80) || url.host,
				url: url.href,
				format: choice(raw, 'format', WEBHOOK_FORMATS, 'json'),
				paused: flag(raw, 'paused')
			}
		};
	} catch (e) {
		if (e instanceof RuleError) return { ok: false, error: e.message };
		throw e;
	}
}

/** The feed a rule reads: its chain (`SPX` classic `gex_full`), or orderflow for a flow rule. */
export function feedOfRule(rule: AlertRule): Feed {
	return rule.kind === 'flow_cross'
		? feedOf(rule.ticker, 'orderflow', 'orderflow')
		: feedOf(rule.ticker, rule.package, rule.category);
}

/** The group a rule needs (`SPX_classic_gex_full`, `NDX_orderflow_orderflow`). */
export function groupOfRule(rule: AlertRule): string {
	return feedGroup(feedOfRule(rule));
}

/** Levels are cents apart: two decimals unless whole (a 0.25 move of 7432 must show). */
export function fmt(n: number): string {
	return Number.isInteger(n) ? String(n) : n.toFixed(2);
}

/** One line saying what the rule watches, in the page's and the webhooks' words. */
export function describeRule(rule: AlertRule): string {
	const src =
		rule.kind === 'flow_cross'
			? ''
			: ` (${rule.package === 'state' ? 'State ' : ''}${categoryName(rule.category)})`;
	switch (rule.kind) {
		case 'cross': {
			const level =
				rule.level === 'price'
					? fmt(rule.price ?? 0)
					: rule.level === 'max_change'
						? `the ${LOOKBACK_LABELS[rule.lookback]} max change strike`
						: LEVEL_LABELS[rule.level];
			const dir = rule.direction === 'either' ? '' : ` ${rule.direction}`;
			return `${rule.ticker} spot crosses${dir} ${level}${src}`;
		}
		case 'level_move':
			return `${rule.ticker} ${LEVEL_LABELS[rule.level]} moves more than ${fmt(rule.points)} points${src}`;
		case 'max_change':
			return `${rule.ticker} ${LOOKBACK_LABELS[rule.lookback]} max change reaches ${fmt(rule.size)}${src}`;
		case 'gex_sign':
			return `${rule.ticker} net GEX (${rule.basis === 'oi' ? 'OI' : 'volume'}) changes sign${src}`;
		case 'flow_cross': {
			const dir = rule.direction === 'either' ? '' : ` ${rule.direction}`;
			return `${rule.ticker} ${rule.flow.toUpperCase()} flow (${rule.expiry === 'zero' ? '0DTE' : 'next expiry'}) crosses${dir} ${fmt(rule.value)}`;
		}
	}
}
