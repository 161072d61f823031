import { error } from '@sveltejs/kit';
import { DEFAULT_LAYOUT, parseWorkspace } from '$lib/state/workspace';
import { ViewStateError } from '$lib/state/viewState';
import type { PageLoad } from './$types';

/**
 * The whole workspace comes from the URL (panels, groups, each group's day and moment), so Copy
 * link reopens it; a bare /workspace opens the index trio.
 */
export const load = (({ url }) => {
	const search = url.searchParams.has('p') ? url.searchParams : new URLSearchParams(DEFAULT_LAYOUT);
	try {
		return { workspace: parseWorkspace(search) };
	} catch (err) {
		if (err instanceof ViewStateError) error(404, err.message);
		throw err;
	}
}) satisfies PageLoad;
