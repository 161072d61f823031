import type { GexCategory } from '$lib/contract/categories';
import type { Metric } from '$lib/state/viewState';
import { withTimeLink, type TimeLink } from '$lib/state/timeLink';
import { withQuery } from '$lib/state/viewState';

/** What the heatmap shows besides its time: the page's link and a workspace panel both carry it. */
export interface HeatmapViewState {
	ticker: string;
	category: GexCategory;
	metric: Metric;
}

/** The heatmap page's link for a view and a time (`day`, the moment `at`). */
export function heatmapHref(view: HeatmapViewState, time: TimeLink): string {
	// A one-off query for a link, not reactive state.
	const q = new URLSearchParams();
	if (view.metric !== 'vol') q.set('metric', view.metric);
	return withTimeLink(withQuery(`/${view.ticker}/heatmap/${view.category}`, q), time);
}
