/**
 * Taps made on the server's page before the app started. Until the root layout mounts, the page
 * on screen is the server's HTML and its buttons have no handlers: a phone that takes a second
 * to start the app would drop the first tap on a category, a toggle or a zoom. app.html's inline
 * script keeps each button tapped in that time (once: a second tap on a button that did nothing
 * repeats the wish, it does not cancel it) and marks it `data-early-tap`; the root layout calls
 * replayEarlyTaps() once the app runs, which clicks each one still on the page, in tap order.
 * Links need none of this (the browser follows them), nor buttons with a native command.
 */

declare global {
	interface Window {
		__gexdeckEarlyTaps?: HTMLButtonElement[];
	}
}

/** Click the buttons tapped before the app started; returns how many were replayed. */
export function replayEarlyTaps(win: Window = window): number {
	const taps = win.__gexdeckEarlyTaps ?? [];
	delete win.__gexdeckEarlyTaps;
	let replayed = 0;
	for (const button of taps) {
		button.removeAttribute('data-early-tap');
		if (!button.isConnected || button.disabled) continue;
		button.click();
		replayed++;
	}
	return replayed;
}
