import { loadDayView } from '../../dayView/dayViewLink';
import type { PageLoad } from './$types';

/**
 * The price chart's state is its URL, as the heatmap's: ticker, category (whose zero gamma and
 * majors are drawn), metric (the majors by volume or OI), `day` and the replayed moment `at`.
 */
export const load = (({ params, url }) => loadDayView(params, url)) satisfies PageLoad;
