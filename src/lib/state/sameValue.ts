/**
 * Keeps the identity of a value across navigations that rebuild it unchanged.
 *
 * A page's `load` runs again on every navigation, so `data.view` and `data.time` are new
 * objects even when only another part of the link changed (marking a moment writes `at`). A
 * component prop like `ticker={view.ticker}` is read through `view`, so every effect keyed on
 * such a prop ran again: the levels path refetched its day and was redrawn under the user's
 * focus, pollers restarted. `const view = $derived(sameView(data.view))` (with `const sameView = keepWhileEqual()`) hands out the
 * previous object while the new one is equal, and Svelte then notifies nobody.
 *
 * Equality is structural over plain JSON data (what the view-state parsers return).
 */
export function keepWhileEqual<T>(): (next: T) => T {
	let last: { value: T; key: string } | undefined;
	return (next) => {
		const key = JSON.stringify(next);
		if (last && last.key === key) return last.value;
		last = { value: next, key };
		return next;
	};
}
