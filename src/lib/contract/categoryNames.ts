/**
 * One set of category names for people (issue 25 item 9): the views' pickers, the EOD report's
 * list and the alert rules say "Full", "0DTE", "Next" (with the service's id where it helps),
 * never one name on a view and the service's id on another page.
 */
import { GREEKS, type GexCategory } from './categories';

export const GEX_CATEGORY_NAMES: Readonly<Record<GexCategory, { label: string; title: string }>> = {
	gex_full: { label: 'Full', title: 'All expiries up to 90 days' },
	gex_zero: { label: '0DTE', title: 'Nearest expiry' },
	gex_one: { label: 'Next', title: 'Next expiry' }
};

/**
 * "0DTE" for gex_zero, "Vanna Next" for vanna_one; a package prefix ("classic/gex_zero") is
 * read too; else the id.
 */
export function categoryName(category: string): string {
	const id = category.includes('/') ? category.slice(category.lastIndexOf('/') + 1) : category;
	const gex = GEX_CATEGORY_NAMES[id as GexCategory];
	if (gex) return gex.label;
	const [greek, expiry] = id.split('_');
	const expiryName = GEX_CATEGORY_NAMES[`gex_${expiry}` as GexCategory]?.label;
	if ((GREEKS as readonly string[]).includes(greek) && expiryName && expiry !== 'full') {
		return `${greek[0].toUpperCase()}${greek.slice(1)} ${expiryName}`;
	}
	return id;
}
