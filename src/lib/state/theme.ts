/**
 * The colour theme: a share link's `theme` parameter wins, else the viewer's own choice (a
 * cookie, so the server renders the right theme on the first byte), else dark.
 */
import type { Theme } from './viewState';

export const THEME_COOKIE = 'gexdeck_theme';

export function currentTheme(): Theme {
	return document.documentElement.dataset.theme === 'light' ? 'light' : 'dark';
}

/** Apply and remember a theme choice. */
export function applyTheme(theme: Theme): void {
	document.documentElement.dataset.theme = theme;
	document.cookie = `${THEME_COOKIE}=${theme}; path=/; max-age=31536000; SameSite=Strict`;
}
