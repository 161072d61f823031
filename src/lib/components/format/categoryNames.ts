/** The views' category names; the table lives in the contract so alert rules (pure) share it. */
export { GEX_CATEGORY_NAMES, categoryName } from '$lib/contract/categoryNames';
