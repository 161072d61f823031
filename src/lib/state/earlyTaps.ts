/**
 * Taps and picks made on the server's page before the app started. Until the root layout mounts,
 * the page on screen is the server's HTML and its controls have no handlers: a phone that takes
 * a second to start the app would drop the first tap on a category, a toggle or a zoom, and the
 * hydration would quietly put a select or a date field back to what the server drew.
 *
 * app.html's inline script keeps, in the order first touched:
 * - each button tapped (once: a second tap on a button that did nothing repeats the wish, it
 *   does not cancel it);
 * - each select, field, box or radio changed, with its last value.
 * It marks each one `data-early-tap` (outlined, app.css). The root layout calls replayEarlyTaps()
 * once the app runs: a button still on the page is clicked; a control gets its kept value back
 * and the `input` and `change` events its handlers listen to.
 * Links need none of this (the browser follows them), nor buttons with a native command, nor a
 * form's submit (the browser posts it). File and password fields are never kept.
 */

/** A button tapped (no value) or a control changed (its value, and checked for a box). */
export interface EarlyAction {
	el: HTMLElement;
	value?: string;
	checked?: boolean;
}

declare global {
	interface Window {
		__gexdeckEarly?: EarlyAction[];
	}
}

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

function replayEdit(el: Control, action: EarlyAction): void {
	if (el.type === 'checkbox' || el.type === 'radio')
		(el as HTMLInputElement).checked = action.checked ?? false;
	else el.value = action.value ?? el.value;
	el.dispatchEvent(new Event('input', { bubbles: true }));
	el.dispatchEvent(new Event('change', { bubbles: true }));
}

/** Replays what was kept before the app started, in order; returns how many were replayed. */
export function replayEarlyTaps(win: Window = window): number {
	const kept = win.__gexdeckEarly ?? [];
	delete win.__gexdeckEarly;
	let replayed = 0;
	for (const action of kept.splice(0)) {
		const el = action.el as HTMLElement & { disabled?: boolean };
		el.removeAttribute('data-early-tap');
		if (!el.isConnected || el.disabled) continue;
		if ('value' in action) replayEdit(el as Control, action);
		else el.click();
		replayed++;
	}
	return replayed;
}
