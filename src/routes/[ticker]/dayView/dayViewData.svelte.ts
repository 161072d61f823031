/**
 * A day view's data (the heatmap's and the price view's): the category's day as a HeatmapSession,
 * loaded again only when the ticker, category, metric or day changes, and for today the live
 * chains (the stream for Quant accounts, else the REST poller) appended as they arrive; the days
 * the server recorded, for the day picker. Construct during component init: it registers its
 * own effects.
 */
import { untrack } from 'svelte';
import { feedGroup, feedOf, feedRoute, feedStream } from '$lib/contract/feeds';
import { parseGexColumns, type ColumnarGex } from '$lib/charts/histogram/classicChain';
import { LiveView } from '$lib/live/liveView.svelte';
import { RecordedDays } from '$lib/live/recordedDays.svelte';
import type { StreamAccess } from '$lib/live/streamFeed.svelte';
import { HeatmapSession } from '../heatmap/[category]/heatmapSession.svelte';
import type { DayViewState } from './dayViewLink';

export class DayViewData {
	readonly columns: LiveView<ColumnarGex>;
	/** The newest live chain, today only (a cached paint is not a new column). */
	readonly liveChain: ColumnarGex | undefined;
	readonly session: HeatmapSession;
	readonly recordedDays: RecordedDays;
	/**
	 * What the session loads, as a value: every navigation gives a new view object (writing the
	 * replayed moment to the URL is one), and a new session would reload the whole day and reset
	 * the chart's window under the user's zoom.
	 */
	private readonly key: string;

	constructor(view: () => DayViewState, day: () => string | null, access: () => StreamAccess) {
		const live = () => day() === null;
		const feed = () => feedOf(view().ticker, 'classic', view().category);
		this.columns = new LiveView<ColumnarGex>({
			access,
			group: () => feedGroup(feed()),
			route: () => feedRoute(feed()),
			parse: () => parseGexColumns,
			live
		});
		this.liveChain = $derived(live() && !this.columns.stale ? this.columns.value : undefined);
		this.key = $derived(JSON.stringify([view().ticker, view().category, view().metric, day()]));
		this.session = $derived.by(() => {
			const [ticker, category, metric, requested] = JSON.parse(this.key) as [
				string,
				DayViewState['category'],
				DayViewState['metric'],
				string | null
			];
			return new HeatmapSession(ticker, category, metric, requested);
		});
		$effect(() => {
			// Another day, ticker or metric stops the wait for a day the service is generating.
			const stop = new AbortController();
			void this.session.load(stop.signal);
			return () => stop.abort();
		});
		$effect(() => {
			const chain = this.liveChain;
			// addLive reads and bumps the session's revision: untracked, or this effect would loop.
			if (chain) untrack(() => this.session.addLive(chain));
		});
		this.recordedDays = new RecordedDays(
			() => view().ticker,
			() => feedStream(feed())
		);
	}
}
