/**
 * App-relative links built from view state, prefixed with the app's base path. The view state
 * module builds `/SPX/classic/gex_full?metric=oi`; this turns it into a navigable pathname.
 */
import { resolve } from '$app/paths';
import type { ResolvedPathname } from '$app/types';

export function appHref(pathWithQuery: string): ResolvedPathname {
	if (!pathWithQuery.startsWith('/') || pathWithQuery.startsWith('//')) {
		throw new Error(`not an app path: ${pathWithQuery}`);
	}
	return `${resolve('/').replace(/\/$/, '')}${pathWithQuery}` as ResolvedPathname;
}
