/** The last Classic view opened in this browser, so the home page can return to it. */
export const LAST_VIEW_COOKIE = 'gexdeck_last';

export function rememberLastView(path: string): void {
	document.cookie = `${LAST_VIEW_COOKIE}=${encodeURIComponent(path)}; path=/; max-age=31536000; SameSite=Strict`;
}
