/**
 * The days this server recorded a view's stream on (newest first) and the day it is recording
 * now, for the day picker: fetched from /history when the ticker or stream changes. The picker
 * (components/DayPicker.svelte) only shows them; the fetching lives here, with the page's other
 * data. Construct during component init: it registers its own effect.
 */
import { recordedDays } from '$lib/stream/backfill/backfillClient';

export class RecordedDays {
	days: readonly string[] = $state.raw([]);
	/** The day the server is recording now: picked, it replays and keeps following new records. */
	recording: string | null = $state(null);

	/**
	 * @param ticker the view's ticker
	 * @param stream the recorded stream whose days are offered (e.g. `classic_gex_full`)
	 */
	constructor(ticker: () => string, stream: () => string) {
		$effect(() => {
			let current = true;
			void recordedDays(ticker(), stream()).then((d) => {
				if (!current) return;
				this.days = d.days;
				this.recording = d.recording;
			});
			return () => (current = false);
		});
	}
}
