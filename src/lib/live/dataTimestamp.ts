/**
 * The data's own timestamp (unix s) of a live view's value, whatever its shape: a chain or
 * orderflow body (`timestamp`), or a State snapshot (`chain` or `profile` inside). What the
 * freshness badge judges; undefined when the value carries none.
 */
export function dataTimestamp(value: unknown): number | undefined {
	if (value === null || typeof value !== 'object') return undefined;
	const v = value as { timestamp?: unknown; chain?: unknown; profile?: unknown };
	if (typeof v.timestamp === 'number') return v.timestamp;
	return dataTimestamp(v.chain) ?? dataTimestamp(v.profile);
}
