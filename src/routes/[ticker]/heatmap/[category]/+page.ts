import { error } from '@sveltejs/kit';
import { parseClassicView, ViewStateError } from '$lib/state/viewState';
import { isCalendarDate } from '$lib/contract/dates';
import type { PageLoad } from './$types';

/**
 * The heatmap's state is its URL: ticker, category, metric, and for a past day `day` (ET
 * YYYY-MM-DD) and `t` (the moment to centre on, unix s), so a share link reopens the same view.
 */
export const load = (({ params, url }) => {
	try {
		const classic = parseClassicView(params.ticker, params.category, url.searchParams);
		const day = url.searchParams.get('day');
		if (day !== null && !isCalendarDate(day)) {
			throw new ViewStateError(`day must be YYYY-MM-DD, got '${day}'`);
		}
		const t = url.searchParams.get('t');
		const moment = t === null ? null : Number(t);
		if (moment !== null && !Number.isFinite(moment)) {
			throw new ViewStateError(`t must be unix seconds, got '${t}'`);
		}
		return {
			view: { ticker: classic.ticker, category: classic.category, metric: classic.metric },
			day,
			moment
		};
	} catch (err) {
		if (err instanceof ViewStateError) error(404, err.message);
		throw err;
	}
}) satisfies PageLoad;
