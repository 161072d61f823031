import { loadDayView } from '../../dayView/dayViewLink';
import type { PageLoad } from './$types';

/**
 * The heatmap's state is its URL: ticker, category, metric, and for a past day `day` and the
 * moment to centre on `at` (see dayViewLink.ts), so a share link reopens the same view.
 */
export const load = (({ params, url }) => loadDayView(params, url)) satisfies PageLoad;
