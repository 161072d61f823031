/**
 * Quota windows of the service: a daily window per America/New_York calendar day and a monthly
 * window per ET calendar month, both starting at 00:00 ET. Window ids are the ET date strings, so
 * DST changes need no special casing: Intl resolves the offset of every instant.
 */

const etFormatter = new Intl.DateTimeFormat('en-US', {
	timeZone: 'America/New_York',
	year: 'numeric',
	month: '2-digit',
	day: '2-digit',
	hour: '2-digit',
	minute: '2-digit',
	second: '2-digit',
	hourCycle: 'h23'
});

export interface EtParts {
	year: number;
	month: number;
	day: number;
	hour: number;
	minute: number;
	second: number;
}

/** Wall-clock fields of `at` in America/New_York. */
export function etParts(at: Date): EtParts {
	const out: Record<string, number> = {};
	for (const part of etFormatter.formatToParts(at)) {
		if (part.type !== 'literal') out[part.type] = Number(part.value);
	}
	return {
		year: out.year,
		month: out.month,
		day: out.day,
		hour: out.hour,
		minute: out.minute,
		second: out.second
	};
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD` of the ET calendar day containing `at`. */
export function etDate(at: Date): string {
	const p = etParts(at);
	return `${p.year}-${pad(p.month)}-${pad(p.day)}`;
}

export interface QuotaWindowIds {
	/** ET calendar day, `YYYY-MM-DD`. */
	daily: string;
	/** ET calendar month, `YYYY-MM`. */
	monthly: string;
}

let cachedSecond = Number.NaN;
let cachedIds: QuotaWindowIds = { daily: '', monthly: '' };

/**
 * Window ids for `at`. Cached per second because the snapshot fast path asks on every request
 * and Intl formatting costs microseconds.
 */
export function quotaWindowIds(at: Date): QuotaWindowIds {
	const second = Math.floor(at.getTime() / 1000);
	if (second !== cachedSecond) {
		const daily = etDate(at);
		cachedIds = { daily, monthly: daily.slice(0, 7) };
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
