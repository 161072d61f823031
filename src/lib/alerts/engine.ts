/**
 * The alert rule engine: a pure state machine fed with observations (a spot, a chain's levels,
 * an orderflow snapshot) and answering the firings they cause. No I/O and no clock of its own:
 * every time is the data's own unix second, so a simulated or replayed session behaves exactly
 * like a live one, and tests drive it with plain arrays.
 *
 * Semantics, for every kind:
 * - Edge-triggered. The first observation of a rule (and the first after a gap in its data,
 *   longer than `maxGapSeconds`, or a step back in time) only establishes the state; a firing
 *   needs a transition seen within continuous data. A level that is missing (zero gamma 0 = not
 *   computed, a State chain's OI majors 0 = n/a, a non-finite value) is not an observation.
 * - Hysteresis: a side (above/below, positive/negative) changes only once the value clears the
 *   level by more than `hysteresis`, so spot sitting on a level does not flap.
 * - Cooldown: after a firing the rule stays quiet for `cooldownSeconds` of data time; a
 *   transition inside the cooldown is consumed (the state moves on) without firing, except a
 *   level move, which fires once the cooldown ends if the level is still that far away.
 * - Active window: outside it the state is tracked but nothing fires.
 */
import { feedStream } from '../contract/feeds';
import { isSessionDay } from '../contract/marketCalendar';
import { etDay, etInstant } from '../contract/newYorkTime';
import {
	feedOfRule,
	fmt,
	LOOKBACKS,
	type AlertRule,
	type ChainLevel,
	type CrossRule,
	type Direction,
	type FlowCrossRule,
	type GexSignRule,
	type LevelMoveRule,
	type MaxChangeRule,
	type RuleWindow
} from './rules';

export type {
	ChainObservation,
	EngineOptions,
	Firing,
	Observation,
	OrderflowObservation,
	SpotObservation
} from './observations';
import type {
	ChainObservation,
	EngineOptions,
	Firing,
	Observation,
	OrderflowObservation
} from './observations';

const DEFAULT_MAX_GAP = 120;

type Side = -1 | 0 | 1;

interface RuleState {
	rule: AlertRule;
	/** -1 below / negative, 1 above / positive, 0 not yet known. */
	side: Side;
	lastT: number;
	lastFiredT: number;
	/** level_move: the level at the last firing (or first seen). */
	ref: number | undefined;
	/** Window instants of the day they were computed for. */
	windowDay: string | undefined;
	windowFrom: number;
	windowTo: number;
	windowOpenDay: boolean;
}

interface TickerRules {
	/** Chain stream -> rules reading it (cross rules included). */
	byStream: Map<string, RuleState[]>;
	/** Cross rules, evaluated on every spot too. */
	cross: RuleState[];
	flow: RuleState[];
}

interface ChainLevels {
	t: number;
	obs: ChainObservation;
}

/** A level that is really there: finite and not the "not computed" / "n/a" zero. */
function present(v: number | undefined): v is number {
	return v !== undefined && Number.isFinite(v) && v !== 0;
}

function directionMatches(direction: Direction, to: Side): boolean {
	return direction === 'either' || (direction === 'up' ? to === 1 : to === -1);
}

/** The stream name of a chain rule (`classic_gex_full`). */
export function streamOfRule(rule: AlertRule): string {
	return feedStream(feedOfRule(rule));
}

function minutesOf(hhmm: string): number {
	return Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
}

/** The ET day of a unix second, with the day's bounds cached (one Intl call per day). */
class DayClock {
	private from = Number.POSITIVE_INFINITY;
	private to = Number.NEGATIVE_INFINITY;
	private day = '';

	dayOf(t: number): string {
		if (t >= this.from && t < this.to) return this.day;
		const day = etDay(t);
		const [y, m, d] = day.split('-').map(Number);
		const next = new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
		this.day = day;
		this.from = etInstant(day, 0);
		this.to = etInstant(next, 0);
		return day;
	}
}

export class AlertEngine {
	private readonly byTicker = new Map<string, TickerRules>();
	private readonly states = new Map<string, RuleState>();
	private readonly chains = new Map<string, ChainLevels>();
	private readonly clock = new DayClock();
	private readonly maxGap: number;
	/** Observations evaluated (bench, page). */
	observations = 0;

	constructor(rules: readonly AlertRule[] = [], options: EngineOptions = {}) {
		this.maxGap = options.maxGapSeconds ?? DEFAULT_MAX_GAP;
		this.setRules(rules);
	}

	/**
	 * Replaces the rule set. A rule whose definition did not change keeps its state (sides,
	 * cooldown), so editing one rule or re-reading the file does not re-arm the others.
	 */
	setRules(rules: readonly AlertRule[]): void {
		const previous = new Map(this.states);
		this.states.clear();
		this.byTicker.clear();
		for (const rule of rules) {
			if (rule.paused) continue;
			const old = previous.get(rule.id);
			const state: RuleState =
				old && JSON.stringify(old.rule) === JSON.stringify(rule)
					? old
					: {
							rule,
							side: 0,
							lastT: Number.NEGATIVE_INFINITY,
							lastFiredT: Number.NEGATIVE_INFINITY,
							ref: undefined,
							windowDay: undefined,
							windowFrom: 0,
							windowTo: 0,
							windowOpenDay: false
						};
			this.states.set(rule.id, state);
			let t = this.byTicker.get(rule.ticker);
			if (!t) {
				t = { byStream: new Map(), cross: [], flow: [] };
				this.byTicker.set(rule.ticker, t);
			}
			if (rule.kind === 'flow_cross') {
				t.flow.push(state);
				continue;
			}
			const stream = streamOfRule(rule);
			const list = t.byStream.get(stream) ?? [];
			list.push(state);
			t.byStream.set(stream, list);
			if (rule.kind === 'cross') t.cross.push(state);
		}
	}

	/**
	 * Forgets every rule's state (sides, references: the next observation only establishes it,
	 * as after a gap) and starts each rule's cooldown at its last firing's data time (unix s,
	 * from the firing log): an engine taking over another's evaluation (a failover, a restart)
	 * neither acts on a state it kept from an earlier turn nor fires again inside a cooldown
	 * the other one started.
	 */
	restart(lastFiredAt: ReadonlyMap<string, number>): void {
		const rules = [...this.states.values()].map((s) => s.rule);
		this.states.clear();
		this.setRules(rules);
		for (const [id, t] of lastFiredAt) {
			const s = this.states.get(id);
			if (s) s.lastFiredT = t;
		}
	}

	/** Does any active rule read this ticker's `stream` (or, for `spot`, any of its chains)? */
	wants(ticker: string, stream: string): boolean {
		const t = this.byTicker.get(ticker);
		if (!t) return false;
		if (stream === 'spot') return t.cross.length > 0;
		if (stream === 'orderflow_orderflow') return t.flow.length > 0;
		return t.byStream.has(stream);
	}

	/** The latest chain seen of a ticker's stream (test-fire shows current values). */
	latestChain(ticker: string, stream: string): ChainObservation | undefined {
		return this.chains.get(`${ticker} ${stream}`)?.obs;
	}

	/** Feeds one observation; returns the firings it caused (usually none). */
	observe(obs: Observation): Firing[] {
		this.observations++;
		const rules = this.byTicker.get(obs.ticker);
		if (!rules || !Number.isFinite(obs.t)) return [];
		const out: Firing[] = [];
		switch (obs.kind) {
			case 'spot':
				if (!present(obs.spot)) return out;
				for (const s of rules.cross) {
					const chain = this.chains.get(`${obs.ticker} ${streamOfRule(s.rule)}`);
					this.evalCross(s, obs.t, obs.spot, chain, out);
				}
				return out;
			case 'chain': {
				const key = `${obs.ticker} ${obs.stream}`;
				const last = this.chains.get(key);
				if (!last || obs.t >= last.t) this.chains.set(key, { t: obs.t, obs });
				const list = rules.byStream.get(obs.stream);
				if (!list) return out;
				const chain = this.chains.get(key);
				for (const s of list) {
					switch (s.rule.kind) {
						case 'cross':
							if (present(obs.spot)) this.evalCross(s, obs.t, obs.spot, chain, out);
							break;
						case 'level_move':
							this.evalMove(s, s.rule, obs, out);
							break;
						case 'max_change':
							this.evalMaxChange(s, s.rule, obs, out);
							break;
						case 'gex_sign':
							this.evalSign(s, s.rule, obs, out);
							break;
					}
				}
				return out;
			}
			case 'orderflow':
				for (const s of rules.flow) this.evalFlow(s, s.rule as FlowCrossRule, obs, out);
				return out;
		}
	}

	// ---- shared steps ------------------------------------------------------------------

	/**
	 * Moves the rule's clock to `t`. Returns false when the observation is older than the last
	 * one (out of order: ignored). A gap or a first observation clears the state.
	 */
	private advance(s: RuleState, t: number): boolean {
		if (t < s.lastT) {
			return false;
		}
		if (t - s.lastT > this.maxGap) {
			s.side = 0;
			s.ref = undefined;
		}
		s.lastT = t;
		return true;
	}

	/** May the rule fire at `t` (cooldown over, inside its window)? */
	private mayFire(s: RuleState, t: number): boolean {
		if (t < s.lastFiredT + s.rule.cooldownSeconds) return false;
		if (t < s.lastFiredT) return false;
		return this.inWindow(s, s.rule.window, t);
	}

	private inWindow(s: RuleState, w: RuleWindow | null, t: number): boolean {
		if (!w) return true;
		const day = this.clock.dayOf(t);
		if (s.windowDay !== day) {
			s.windowDay = day;
			s.windowOpenDay = !w.marketDays || isSessionDay(day);
			s.windowFrom = etInstant(day, minutesOf(w.start) * 60);
			s.windowTo = etInstant(day, minutesOf(w.end) * 60);
		}
		return s.windowOpenDay && t >= s.windowFrom && t < s.windowTo;
	}

	/** Side of `x` against `level` with the band ±h; inside the band the side is kept. */
	private static side(prev: Side, d: number, h: number): Side {
		if (d > h) return 1;
		if (d < -h) return -1;
		return prev;
	}

	private fire(s: RuleState, t: number, firing: Omit<Firing, 'ruleId' | 'ticker' | 'kind' | 'at'>) {
		s.lastFiredT = t;
		return { ruleId: s.rule.id, ticker: s.rule.ticker, kind: s.rule.kind, at: t, ...firing };
	}

	// ---- kinds ---------------------------------------------------------------------------

	private crossLevel(rule: CrossRule, chain: ChainLevels | undefined, t: number) {
		if (rule.level === 'price') return rule.price ?? undefined;
		// A level older than the gap bound is not the level any more.
		if (!chain || t - chain.t > this.maxGap) return undefined;
		if (rule.level === 'max_change') {
			const i = LOOKBACKS.indexOf(rule.lookback) * 2;
			return chain.obs.max_priors[i];
		}
		return chain.obs[rule.level];
	}

	private evalCross(
		s: RuleState,
		t: number,
		spot: number,
		chain: ChainLevels | undefined,
		out: Firing[]
	): void {
		const rule = s.rule as CrossRule;
		const level = this.crossLevel(rule, chain, t);
		if (!present(level)) return;
		if (!this.advance(s, t)) return;
		const prev = s.side;
		const next = AlertEngine.side(prev, spot - level, rule.hysteresis);
		s.side = next;
		if (prev === 0 || next === prev) return;
		if (!directionMatches(rule.direction, next)) return;
		if (!this.mayFire(s, t)) return;
		const name =
			rule.level === 'price'
				? fmt(level)
				: `${rule.level === 'max_change' ? 'max change strike' : rule.level.replaceAll('_', ' ')} ${fmt(level)}`;
		out.push(
			this.fire(s, t, {
				direction: next === 1 ? 'up' : 'down',
				message: `${rule.ticker} spot ${fmt(spot)} crossed ${next === 1 ? 'above' : 'below'} ${name}`,
				values: { spot, level }
			})
		);
	}

	private evalMove(s: RuleState, rule: LevelMoveRule, obs: ChainObservation, out: Firing[]) {
		const level = obs[rule.level as ChainLevel];
		if (!present(level)) return;
		if (!this.advance(s, obs.t)) return;
		if (s.ref === undefined) {
			s.ref = level;
			return;
		}
		const moved = level - s.ref;
		if (Math.abs(moved) <= rule.points) return;
		if (!this.inWindow(s, rule.window, obs.t)) {
			// Moves outside the window are not saved up for its opening.
			s.ref = level;
			return;
		}
		if (!this.mayFire(s, obs.t)) return;
		const from = s.ref;
		s.ref = level;
		out.push(
			this.fire(s, obs.t, {
				direction: moved > 0 ? 'up' : 'down',
				message: `${rule.ticker} ${rule.level.replaceAll('_', ' ')} moved ${moved > 0 ? '+' : ''}${fmt(moved)} points: ${fmt(from)} → ${fmt(level)}`,
				values: { level, previous: from, moved, spot: obs.spot }
			})
		);
	}

	private evalMaxChange(s: RuleState, rule: MaxChangeRule, obs: ChainObservation, out: Firing[]) {
		const i = LOOKBACKS.indexOf(rule.lookback) * 2;
		const strike = obs.max_priors[i];
		const value = obs.max_priors[i + 1];
		if (!Number.isFinite(value) || !Number.isFinite(strike)) return;
		if (!this.advance(s, obs.t)) return;
		const size = Math.abs(value);
		const prev = s.side;
		// Above at `size` (inclusive), back below only under size - hysteresis.
		const next: Side =
			size >= rule.size ? 1 : size < rule.size - rule.hysteresis || prev === 0 ? -1 : prev;
		s.side = next;
		if (prev !== -1 || next !== 1) return;
		if (!this.mayFire(s, obs.t)) return;
		out.push(
			this.fire(s, obs.t, {
				message: `${rule.ticker} ${rule.lookback} max change ${fmt(value)} at strike ${fmt(strike)} (≥ ${fmt(rule.size)})`,
				values: { value, strike, size: rule.size, spot: obs.spot }
			})
		);
	}

	private evalSign(s: RuleState, rule: GexSignRule, obs: ChainObservation, out: Firing[]) {
		const value = rule.basis === 'oi' ? obs.sum_gex_oi : obs.sum_gex_vol;
		if (!Number.isFinite(value)) return;
		if (!this.advance(s, obs.t)) return;
		const prev = s.side;
		const next = AlertEngine.side(prev, value, rule.hysteresis);
		s.side = next;
		if (prev === 0 || next === prev) return;
		if (!this.mayFire(s, obs.t)) return;
		out.push(
			this.fire(s, obs.t, {
				direction: next === 1 ? 'up' : 'down',
				message: `${rule.ticker} net GEX (${rule.basis}) turned ${next === 1 ? 'positive' : 'negative'}: ${fmt(value)}`,
				values: { value, spot: obs.spot }
			})
		);
	}

	private evalFlow(s: RuleState, rule: FlowCrossRule, obs: OrderflowObservation, out: Firing[]) {
		const field = `${rule.expiry === 'one' ? 'one_' : ''}${rule.flow}oflow` as
			'dexoflow' | 'gexoflow' | 'one_dexoflow' | 'one_gexoflow';
		const value = obs[field];
		if (!Number.isFinite(value)) return;
		if (!this.advance(s, obs.t)) return;
		const prev = s.side;
		const next = AlertEngine.side(prev, value - rule.value, rule.hysteresis);
		s.side = next;
		if (prev === 0 || next === prev) return;
		if (!directionMatches(rule.direction, next)) return;
		if (!this.mayFire(s, obs.t)) return;
		out.push(
			this.fire(s, obs.t, {
				direction: next === 1 ? 'up' : 'down',
				message: `${rule.ticker} ${rule.flow.toUpperCase()} flow ${fmt(value)} crossed ${next === 1 ? 'above' : 'below'} ${fmt(rule.value)}`,
				values: { value, threshold: rule.value, spot: obs.spot }
			})
		);
	}
}
