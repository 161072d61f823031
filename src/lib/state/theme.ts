/**
 * The colour theme: a share link's `theme` parameter wins, else the viewer's own choice (a
 * cookie, so the server renders the right theme on the first byte), else the system's setting
 * (`data-theme="system"`: prefers-color-scheme in app.css; dark when the system has none).
 * The palette (colour-blind-safe or not) is the viewer's choice, kept in a cookie too.
 */
import type { Theme } from './viewState';

export const THEME_COOKIE = 'gexdeck_theme';
export const PALETTE_COOKIE = 'gexdeck_palette';

export type Palette = 'standard' | 'cb';

export function currentTheme(): Theme {
	const chosen = document.documentElement.dataset.theme;
	if (chosen === 'system') {
		return matchMedia('(prefers-color-scheme: light)').matches ? 'light' : 'dark';
	}
	return chosen === 'light' ? 'light' : 'dark';
}

/** Apply and remember a theme choice. */
export function applyTheme(theme: Theme): void {
	document.documentElement.dataset.theme = theme;
	document.cookie = `${THEME_COOKIE}=${theme}; path=/; max-age=31536000; SameSite=Strict`;
}

export function currentPalette(): Palette {
	return document.documentElement.dataset.palette === 'cb' ? 'cb' : 'standard';
}

/** Apply and remember the palette. */
export function applyPalette(palette: Palette): void {
	document.documentElement.dataset.palette = palette;
	document.cookie = `${PALETTE_COOKIE}=${palette}; path=/; max-age=31536000; SameSite=Strict`;
}
