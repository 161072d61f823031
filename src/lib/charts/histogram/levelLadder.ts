/**
 * The levels view as a price ladder (issue 25 item 6): every level with a price, spot among
 * them, sorted by price from the highest down, so a trader reads where spot sits between
 * levels instead of sorting them in their head. The nearest level above spot and the nearest
 * below are marked; each level carries its distance from spot in points and percent. Levels the
 * chain does not have (zero gamma not computed, State's OI side) are listed apart, unpriced.
 */
import { distance, type LevelRow } from './phoneLevels';

export interface LadderRow extends LevelRow {
	value: number;
	points: number;
	percent: number;
	/** The nearest level above or below spot (ties: every level at that price). */
	nearest?: 'above' | 'below';
}

export interface Ladder {
	rows: LadderRow[];
	/** Levels without a price, with why (e.g. zero gamma not computed). */
	unpriced: LevelRow[];
}

export function levelLadder(levels: readonly LevelRow[], spot: number): Ladder {
	const priced: LadderRow[] = [];
	const unpriced: LevelRow[] = [];
	for (const l of levels) {
		if (l.value === null || !Number.isFinite(l.value) || l.value <= 0) unpriced.push(l);
		else priced.push({ ...l, value: l.value, ...distance(l.value, spot) });
	}
	// Highest price on top; at one price spot sits first, then the list's own order.
	const order = new Map(levels.map((l, i) => [l.id, i]));
	priced.sort(
		(a, b) =>
			b.value - a.value ||
			Number(b.tone === 'spot') - Number(a.tone === 'spot') ||
			(order.get(a.id) ?? 0) - (order.get(b.id) ?? 0)
	);
	const others = priced.filter((r) => r.tone !== 'spot');
	const above = others.filter((r) => r.value > spot);
	const below = others.filter((r) => r.value < spot);
	const nearestAbove = above.length ? Math.min(...above.map((r) => r.value)) : undefined;
	const nearestBelow = below.length ? Math.max(...below.map((r) => r.value)) : undefined;
	for (const r of others) {
		if (r.value === nearestAbove) r.nearest = 'above';
		else if (r.value === nearestBelow) r.nearest = 'below';
	}
	return { rows: priced, unpriced };
}
