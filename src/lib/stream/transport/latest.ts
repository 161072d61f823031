/**
 * The newest update per group as an immutable map: each batch makes a new map, so a
 * `$state.raw` holder re-renders once per batch and views can compare by identity.
 */
import type { StreamUpdate } from './updates';

export const EMPTY_LATEST: ReadonlyMap<string, StreamUpdate> = new Map();

export function withUpdates(
	latest: ReadonlyMap<string, StreamUpdate>,
	updates: readonly StreamUpdate[]
): ReadonlyMap<string, StreamUpdate> {
	const next = new Map(latest);
	for (const u of updates) next.set(u.group, u);
	return next;
}

export function withoutGroups(
	latest: ReadonlyMap<string, StreamUpdate>,
	groups: readonly string[]
): ReadonlyMap<string, StreamUpdate> {
	const next = new Map(latest);
	for (const g of groups) next.delete(g);
	return next;
}
