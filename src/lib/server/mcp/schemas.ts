/**
 * The MCP tools' input and output JSON schemas (zod; the SDK publishes them as JSON Schema in
 * tools/list and checks every answer against them). The levels document mirrors
 * src/lib/levels/document.ts field for field: a field added there and not here fails the
 * levels tool's output check in the MCP test.
 */
import { z } from 'zod';
import { MAX_CHANGE_WINDOWS } from '../../levels/document';
import { CATEGORIES } from '../feed/levelsRequest';

export const tickerInput = z
	.string()
	.regex(/^[A-Za-z0-9_]{1,16}$/, 'a ticker: letters, digits, _ (1-16)')
	.describe('Ticker, e.g. SPX, QQQ, ES_SPX');
export const categoryInput = z
	.enum(CATEGORIES)
	.describe('gex_full (all expiries, default), gex_zero (0DTE) or gex_one (next expiry)');
export const dayInput = z
	.string()
	.regex(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD')
	.describe('New York trading day, YYYY-MM-DD');

const stamp = z.object({ unix_ms: z.number(), et: z.string() });
const nullableNumber = z.number().nullable();

export const levelSchema = z.object({
	id: z.string(),
	label: z.string(),
	kind: z.enum(['spot', 'zero', 'pos', 'neg']),
	price: nullableNumber,
	reason: z.string().nullable()
});

export const strikeGexSchema = z.object({
	strike: z.number(),
	net_gex_vol: z.number(),
	net_gex_oi: z.number()
});

export const levelsDocumentSchema = z.object({
	schema: z.string(),
	ticker: z.string(),
	category: z.string(),
	as_of: stamp,
	age_seconds: z.number(),
	stale: z.boolean(),
	stale_after_seconds: z.number(),
	stale_reason: z.string().nullable(),
	source: z.enum(['stream', 'poll', 'recording']),
	price_of: z.string(),
	spot: z.number(),
	levels: z.array(levelSchema),
	max_change: z.array(
		z.object({
			window: z.enum(MAX_CHANGE_WINDOWS),
			strike: nullableNumber,
			change: nullableNumber,
			reason: z.string().nullable()
		})
	),
	strikes: z.array(strikeGexSchema).optional(),
	future: z
		.object({
			root: z.string(),
			contract: z.string(),
			multiplier: z.number(),
			additive: z.number(),
			tick: z.number(),
			fetched_at: z.number(),
			age_seconds: z.number()
		})
		.optional()
});

export const profileSchema = z.object({
	ticker: z.string(),
	category: z.string(),
	as_of: stamp,
	age_seconds: z.number(),
	stale: z.boolean(),
	spot: z.number(),
	levels: z.array(levelSchema),
	strikes: z.array(strikeGexSchema),
	strikes_requested: z.number(),
	truncated: z.boolean(),
	note: z.string().nullable()
});

const seriesSchema = z.object({
	open: nullableNumber,
	now: nullableNumber,
	high: nullableNumber,
	low: nullableNumber,
	high_at: z.string().nullable(),
	low_at: z.string().nullable()
});

export const daySummarySchema = z.object({
	ticker: z.string(),
	category: z.string(),
	day: z.string(),
	source: z.literal('recording'),
	first: stamp,
	last: stamp,
	samples: z.number(),
	sample_seconds: z.number(),
	series: z.object({
		spot: seriesSchema,
		zero_gamma_vol: seriesSchema,
		major_pos_vol: seriesSchema,
		major_pos_oi: seriesSchema,
		major_neg_vol: seriesSchema,
		major_neg_oi: seriesSchema
	})
});

export const alertsFiredSchema = z.object({
	firings: z.array(
		z.object({
			id: z.string(),
			rule: z.string(),
			description: z.string(),
			ticker: z.string(),
			kind: z.string(),
			time: z.string(),
			et: z.string(),
			message: z.string(),
			values: z.record(z.string(), z.number()),
			test: z.boolean()
		})
	),
	total: z.number(),
	truncated: z.boolean(),
	note: z.string().nullable()
});

export const listTickersSchema = z.object({
	watchlist: z.object({ tickers: z.array(z.string()), source: z.string() }),
	held: z.array(z.object({ ticker: z.string(), category: z.string(), age_seconds: z.number() })),
	recorded: z.object({ day: z.string(), tickers: z.array(z.string()) }).nullable()
});
