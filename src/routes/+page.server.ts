import { redirect } from '@sveltejs/kit';
import { LAST_VIEW_COOKIE } from '$lib/state/lastView';
import { classicViewUrl, parseClassicView } from '$lib/state/viewState';
import type { PageServerLoad } from './$types';

/** Home: the last Classic view this browser opened, SPX gex_full the first time. */
export const load = (({ cookies }) => {
	const last = cookies.get(LAST_VIEW_COOKIE);
	let target = '/SPX/classic/gex_full';
	if (last) {
		try {
			// Re-derive the URL from parsed state: a tampered cookie cannot redirect elsewhere.
			const url = new URL(last, 'http://local');
			const [, ticker, pkg, category] = url.pathname.split('/');
			if (pkg === 'classic')
				target = classicViewUrl(parseClassicView(ticker, category, url.searchParams));
		} catch {
			// Unusable cookie: fall back to the default view.
		}
	}
	redirect(307, target);
}) satisfies PageServerLoad;
