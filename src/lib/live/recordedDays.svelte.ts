/**
 * The days this server recorded a view's stream on (newest first) and the day it is recording
 * now, for the day picker: fetched from /history when the ticker or stream changes. The picker
 * (components/DayPicker.svelte) only shows them; the fetching lives here, with the page's other
 * data. Construct during component init: it registers its own effect.
 */
import { recordedDays } from '$lib/stream/backfill/backfillClient';
import { inLaterTask } from '$lib/stream/nextTask';

export class RecordedDays {
	days: readonly string[] = $state.raw([]);
	/** The day the server is recording now: picked, it replays and keeps following new records. */
	recording: string | null = $state(null);
	/**
	 * As values: a navigation that rebuilds the page's view object (a zoom, a toggle) but keeps
	 * the ticker and stream must not fetch the days again.
	 */
	private readonly tickerNow: string = $derived.by(() => this.ticker());
	private readonly streamNow: string = $derived.by(() => this.stream());

	/**
	 * @param ticker the view's ticker
	 * @param stream the recorded stream whose days are offered (e.g. `classic_gex_full`)
	 */
	constructor(
		private readonly ticker: () => string,
		private readonly stream: () => string
	) {
		// Asked after the page's first task: the picker is usable without the list, and the page
		// hydrating is its longest task (issue 26). The ticker and stream are read here, so a
		// change of either asks again.
		$effect(() => {
			const ticker = this.tickerNow;
			const stream = this.streamNow;
			return inLaterTask(() => {
				let current = true;
				void recordedDays(ticker, stream).then((d) => {
					if (!current) return;
					this.days = d.days;
					this.recording = d.recording;
				});
				return () => (current = false);
			});
		});
	}
}
