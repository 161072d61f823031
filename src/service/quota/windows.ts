/**
 * Quota windows of the service: a daily window per America/New_York calendar day and a monthly
 * window per ET calendar month, both starting at 00:00 ET. Window ids are the ET date strings
 * (src/lib/contract/newYorkTime.ts, shared with the dashboard's own ledger), so DST changes need
 * no special casing: Intl resolves the offset of every instant.
 */
import { etParts, etWindowIds, type QuotaWindowIds } from '../../lib/contract/newYorkTime';

export { etDate, etParts, type EtParts, type QuotaWindowIds } from '../../lib/contract/newYorkTime';

let cachedSecond = Number.NaN;
let cachedIds: QuotaWindowIds = { daily: '', monthly: '' };

/**
 * Window ids for `at`. Cached per second because the snapshot fast path asks on every request
 * and Intl formatting costs microseconds.
 */
export function quotaWindowIds(at: Date): QuotaWindowIds {
	const second = Math.floor(at.getTime() / 1000);
	if (second !== cachedSecond) {
		cachedIds = etWindowIds(at);
		cachedSecond = second;
	}
	return cachedIds;
}

/** The instant of the next 00:00 ET after `at` (the next daily reset). */
export function nextEtMidnight(at: Date): Date {
	const p = etParts(at);
	// Guess the next midnight at UTC-5, then correct by the observed ET hour (DST is -4).
	const guess = Date.UTC(p.year, p.month - 1, p.day + 1, 5, 0, 0);
	for (const offsetHours of [5, 4]) {
		const candidate = new Date(guess - (5 - offsetHours) * 3_600_000);
		const c = etParts(candidate);
		if (c.hour === 0 && c.minute === 0 && candidate.getTime() > at.getTime()) return candidate;
	}
	return new Date(guess);
}
