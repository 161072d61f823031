/**
 * Lee-Ready trade classification of one print: above the quote midpoint is buyer-initiated,
 * below is seller-initiated; at the midpoint the tick test decides (up from the contract's last
 * different price = buy, down = sell, unchanged = the last tick's direction). 0 = unclassified.
 */
export function classifyPrint(
	price: number,
	bid: number,
	ask: number,
	lastPrice: number,
	lastDirection: number
): -1 | 0 | 1 {
	const mid = (bid + ask) / 2;
	if (price > mid + 1e-9) return 1;
	if (price < mid - 1e-9) return -1;
	if (lastPrice === 0) return 0;
	if (price > lastPrice) return 1;
	if (price < lastPrice) return -1;
	return lastDirection > 0 ? 1 : lastDirection < 0 ? -1 : 0;
}
