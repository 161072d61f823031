/** Calendar-date arithmetic on `YYYY-MM-DD` strings (UTC noon avoids any DST edge). */

export function addDaysIso(date: string, days: number): string {
	const [y, m, d] = date.split('-').map(Number);
	return new Date(Date.UTC(y, m - 1, d + days, 12)).toISOString().slice(0, 10);
}

export function daysBetweenIso(from: string, to: string): number {
	const a = Date.parse(`${from}T12:00:00Z`);
	const b = Date.parse(`${to}T12:00:00Z`);
	return Math.round((b - a) / 86_400_000);
}
