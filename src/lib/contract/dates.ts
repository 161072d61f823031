/**
 * Calendar-date checks shared by history routes (`YYYY-MM-DD`) and explicit-expiry group
 * suffixes (`YYYYMMDD`). A shape match is not enough: 2026-02-30 must be refused before a
 * request is forwarded.
 */

function isRealDate(year: number, month: number, day: number): boolean {
	if (year < 1900 || month < 1 || month > 12 || day < 1) return false;
	// Day 0 of the next month is the last day of this one (UTC avoids DST edges).
	const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
	return day <= lastDay;
}

/** `YYYY-MM-DD` naming a real calendar date. */
export function isCalendarDate(value: unknown): value is string {
	if (typeof value !== 'string') return false;
	const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
	return m !== null && isRealDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

/** `YYYYMMDD` naming a real calendar date (explicit-expiry group suffix). */
export function isCompactDate(value: unknown): value is string {
	if (typeof value !== 'string') return false;
	const m = /^(\d{4})(\d{2})(\d{2})$/.exec(value);
	return m !== null && isRealDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

/** `2026-07-17` -> `20260717` (how expiries become group suffixes). */
export function toCompactDate(isoDate: string): string {
	if (!isCalendarDate(isoDate)) throw new RangeError(`not a YYYY-MM-DD date: ${isoDate}`);
	return isoDate.replaceAll('-', '');
}

/** `20260717` -> `2026-07-17`. */
export function fromCompactDate(compact: string): string {
	if (!isCompactDate(compact)) throw new RangeError(`not a YYYYMMDD date: ${compact}`);
	return `${compact.slice(0, 4)}-${compact.slice(4, 6)}-${compact.slice(6, 8)}`;
}
