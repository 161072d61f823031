/**
 * The MCP tools over the dashboard's own data, registered on one McpServer. Read-only: no tool
 * changes keys, settings, rules or tokens. Every answer is bounded (strikes, firings) and says
 * when it was cut. Live levels come from the levels feed's own answer (levelsAnswer: the feed
 * holder's `levels` client, zero extra upstream calls for a held feed); the past from the
 * recorder's files; firings from the alerts service's log.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AlertFiring } from '../../alerts/firing';
import { etToUtc } from '../../contract/newYorkTime';
import { isStreamTicker } from '../../contract/tickers';
import { etText } from '../../levels/document';
import type { LevelsAnswer } from '../feed/levelsAnswer';
import { parseLevelsRequest, LEVELS_PREFIX, type LevelsRequest } from '../feed/levelsRequest';
import type { AlwaysRecordList } from '../recorder/recorderMount';
import type { SessionRecorder } from '../recorder/sessionRecorder';
import { daySummary, latestDay, levelsAt } from './recorded';
import {
	alertsFiredSchema,
	categoryInput,
	daySummarySchema,
	dayInput,
	levelsDocumentSchema,
	listTickersSchema,
	profileSchema,
	tickerInput
} from './schemas';

/** profile answers at most this many strikes (nearest spot), and says when it cut. */
export const PROFILE_MAX_STRIKES = 100;
/** alerts_fired answers at most this many firings (newest first), and says when it cut. */
export const ALERTS_MAX = 50;
/** A ticker the dashboard starts holding for this call: wait this long for its first value. */
export const FIRST_VALUE_WAIT_MS = 8_000;

export interface McpDeps {
	/** The feed's answer for a levels request (server/feed/levelsAnswer.ts). */
	levels: (r: LevelsRequest) => Promise<LevelsAnswer>;
	recorder: () => SessionRecorder;
	firings: () => AlertFiring[] | Promise<AlertFiring[]>;
	/** The always-record list of the token's owner. */
	watchlist: () => AlwaysRecordList | Promise<AlwaysRecordList>;
	/** Feeds whose levels the dashboard holds now (the levels store). */
	held: () => { ticker: string; category: string; receivedAt: number }[];
}

type Result = CallToolResult;

function ok(value: object): Result {
	return {
		content: [{ type: 'text', text: JSON.stringify(value) }],
		structuredContent: value as Record<string, unknown>
	};
}

function fail(text: string): Result {
	return { content: [{ type: 'text', text }], isError: true };
}

/** A refusal of the feed in words an assistant can act on. */
export function refusalText(a: { status: number; error: string }): string {
	if (/answered 404|unknown ticker|no such ticker/i.test(a.error))
		return `unknown ticker: ${a.error}`;
	if (a.status === 403) return `not entitled: ${a.error}`;
	if (a.status === 409) return `quota: the account's budget is used up (${a.error})`;
	if (a.status === 503) return `not available yet: ${a.error}; try again in a few seconds`;
	return a.error;
}

/** The feed's answer, waiting a few seconds for the first value of a ticker just held. */
async function liveLevels(deps: McpDeps, r: LevelsRequest): Promise<LevelsAnswer> {
	const until = Date.now() + FIRST_VALUE_WAIT_MS;
	for (;;) {
		const a = await deps.levels(r);
		if (a.ok || a.status !== 503 || a.retryAfter === undefined || Date.now() > until) return a;
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

function request(
	ticker: string,
	category?: string,
	strikes?: number,
	future?: string
): { ok: true; value: LevelsRequest } | { ok: false; error: string } {
	if (!isStreamTicker(ticker.toUpperCase())) {
		return {
			ok: false,
			error: `unknown ticker: ${ticker} is not in the service's ticker universe`
		};
	}
	const q = new URLSearchParams();
	if (category) q.set('category', category);
	if (strikes) q.set('strikes', String(strikes));
	if (future) q.set('future', future);
	const parsed = parseLevelsRequest(LEVELS_PREFIX + encodeURIComponent(ticker.toUpperCase()), q);
	return parsed.ok ? parsed : { ok: false, error: parsed.error };
}

/** `HH:MM` or `HH:MM:SS` (New York) on `day` -> unix seconds, or undefined. */
export function etMoment(day: string, time: string): number | undefined {
	const m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(time.trim());
	if (!m) return undefined;
	const [h, min, s] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
	if (h > 23 || min > 59 || s > 59) return undefined;
	try {
		return etToUtc(day, h, min, s) / 1000;
	} catch {
		return undefined;
	}
}

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: false };

export function registerTools(server: McpServer, deps: McpDeps): void {
	server.registerTool(
		'levels',
		{
			title: 'Current GEX levels',
			description:
				"The dashboard's current levels of a ticker, exactly the levels feed's JSON (/feed/v1/levels): spot, zero gamma, the four majors, max change per window, age and stale flag, and a reason for every null level. Optional futures conversion (ES, NQ, RTY, ...).",
			inputSchema: {
				ticker: tickerInput,
				category: categoryInput.optional(),
				future: z
					.string()
					.max(8)
					.optional()
					.describe('Convert prices to this future root: ES, NQ, RTY, ...')
			},
			outputSchema: levelsDocumentSchema.shape,
			annotations: READ_ONLY
		},
		async ({ ticker, category, future }) => {
			const r = request(ticker, category, 0, future);
			if (!r.ok) return fail(r.error);
			const a = await liveLevels(deps, r.value);
			return a.ok ? ok(a.doc) : fail(refusalText(a));
		}
	);

	server.registerTool(
		'profile',
		{
			title: 'GEX profile by strike',
			description: `Net GEX by volume and by open interest of the strikes nearest spot (default 20, at most ${PROFILE_MAX_STRIKES}), with spot and the levels.`,
			inputSchema: {
				ticker: tickerInput,
				category: categoryInput,
				strikes: z
					.number()
					.int()
					.min(1)
					.max(200)
					.optional()
					.describe('How many strikes nearest spot')
			},
			outputSchema: profileSchema.shape,
			annotations: READ_ONLY
		},
		async ({ ticker, category, strikes }) => {
			const requested = strikes ?? 20;
			const n = Math.min(requested, PROFILE_MAX_STRIKES);
			const r = request(ticker, category, n);
			if (!r.ok) return fail(r.error);
			const a = await liveLevels(deps, r.value);
			if (!a.ok) return fail(refusalText(a));
			const d = a.doc;
			const truncated = requested > n;
			return ok({
				ticker: d.ticker,
				category: d.category,
				as_of: d.as_of,
				age_seconds: d.age_seconds,
				stale: d.stale,
				spot: d.spot,
				levels: d.levels,
				strikes: d.strikes ?? [],
				strikes_requested: requested,
				truncated,
				note: truncated ? `cut to the ${n} strikes nearest spot (the limit)` : null
			});
		}
	);

	server.registerTool(
		'day_summary',
		{
			title: 'A recorded day in numbers',
			description:
				"Open, now (last recorded), high and low of spot, zero gamma and the majors through a trading day, from the dashboard's recording (default: the newest recorded day of the ticker).",
			inputSchema: {
				ticker: tickerInput,
				day: dayInput.optional(),
				category: categoryInput.optional()
			},
			outputSchema: daySummarySchema.shape,
			annotations: READ_ONLY
		},
		async ({ ticker, day, category }) => {
			const t = ticker.toUpperCase();
			if (!isStreamTicker(t)) return fail(`unknown ticker: ${ticker}`);
			const cat = category ?? 'gex_full';
			const rec = deps.recorder();
			const d = day ?? latestDay(rec, t, cat);
			if (!d) return fail(`nothing recorded for ${t} ${cat} on any day`);
			const s = daySummary(rec, t, cat, d);
			return s.ok ? ok(s.value) : fail(s.error);
		}
	);

	server.registerTool(
		'at',
		{
			title: 'Levels at a past moment',
			description:
				"The levels (the feed's JSON, source 'recording') at a past moment of a recorded day: the last recorded value at or before that New York time.",
			inputSchema: {
				ticker: tickerInput,
				day: dayInput,
				time: z.string().describe('New York time HH:MM or HH:MM:SS'),
				category: categoryInput.optional()
			},
			outputSchema: levelsDocumentSchema.shape,
			annotations: READ_ONLY
		},
		async ({ ticker, day, time, category }) => {
			const at = etMoment(day, time);
			if (at === undefined) return fail(`not a time on ${day}: "${time}" (use HH:MM or HH:MM:SS)`);
			if (!isStreamTicker(ticker.toUpperCase())) return fail(`unknown ticker: ${ticker}`);
			const r = levelsAt(deps.recorder(), ticker.toUpperCase(), category ?? 'gex_full', day, at);
			return r.ok ? ok(r.value) : fail(r.error);
		}
	);

	server.registerTool(
		'alerts_fired',
		{
			title: 'Alerts fired',
			description: `Alert firings the dashboard kept (newest first, at most ${ALERTS_MAX}), optionally only since a moment (ISO 8601, or YYYY-MM-DD for that day's New York midnight).`,
			inputSchema: { since: z.string().max(40).optional() },
			outputSchema: alertsFiredSchema.shape,
			annotations: READ_ONLY
		},
		async ({ since }) => {
			let from = -Infinity;
			if (since) {
				from = /^\d{4}-\d{2}-\d{2}$/.test(since) ? etToUtc(since) : Date.parse(since);
				if (!Number.isFinite(from)) return fail(`since is not a time: "${since}"`);
			}
			const all = (await deps.firings())
				.filter((f) => f.at * 1000 >= from)
				.sort((a, b) => b.at - a.at);
			const kept = all.slice(0, ALERTS_MAX);
			return ok({
				firings: kept.map((f) => ({
					id: f.id,
					rule: f.ruleName,
					description: f.description,
					ticker: f.ticker,
					kind: f.kind,
					time: f.time,
					et: etText(f.at * 1000),
					message: f.message,
					values: f.values,
					test: f.test
				})),
				total: all.length,
				truncated: all.length > kept.length,
				note: all.length > kept.length ? `the ${ALERTS_MAX} newest of ${all.length}` : null
			});
		}
	);

	server.registerTool(
		'list_tickers',
		{
			title: 'Tickers the dashboard knows',
			description:
				'The watchlist (always-recorded tickers), the feeds whose levels the dashboard holds now with their age, and the tickers recorded on the newest recorded day.',
			outputSchema: listTickersSchema.shape,
			annotations: READ_ONLY
		},
		async () => {
			const w = await deps.watchlist();
			const rec = deps.recorder();
			const days = rec.days();
			const day = days.at(-1);
			const now = Date.now();
			return ok({
				watchlist: { tickers: w.tickers, source: w.source },
				held: deps
					.held()
					.map((h) => ({
						ticker: h.ticker,
						category: h.category,
						age_seconds: Math.max(0, Math.round((now - h.receivedAt) / 100) / 10)
					}))
					.sort((a, b) => a.ticker.localeCompare(b.ticker) || a.category.localeCompare(b.category)),
				recorded: day ? { day, tickers: rec.tickers(day) } : null
			});
		}
	);
}
