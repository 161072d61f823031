/**
 * Subscription levels, ordered: classic < state < orderflow < quant. Package access checks
 * the account's `max_level`. The OpenAPI file spells levels upper case (CLASSIC), account files
 * lower case; comparisons are case-insensitive.
 */

export const LEVELS = ['classic', 'state', 'orderflow', 'quant'] as const;
export type Level = (typeof LEVELS)[number];

/** Rank of a level (classic 1 ... quant 4); 0 for no or an unknown level (no paid tier). */
export function levelRank(level: string | null | undefined): number {
	if (typeof level !== 'string') return 0;
	return (LEVELS as readonly string[]).indexOf(level.toLowerCase()) + 1;
}

export function isLevel(value: unknown): value is Level {
	return typeof value === 'string' && (LEVELS as readonly string[]).includes(value);
}

/** Does `maxLevel` include `required`? (A higher level includes every lower one.) */
export function levelIncludes(maxLevel: string | null | undefined, required: Level): boolean {
	return levelRank(maxLevel) >= levelRank(required);
}
