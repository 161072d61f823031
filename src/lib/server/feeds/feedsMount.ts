/**
 * The feed holder inside the dashboard: one FeedHolder per process on the process's update tap,
 * stream relay and REST proxy, polling in regular trading hours. It re-decides (stream or poll)
 * when the settings change (keys, demo account: onSettingsChange), an event rather than a
 * timer. SvelteKit-only (reads the config through its parts): the recorder's and the alerts'
 * mounts take their clients from feedHolder(); see ./index.ts for the API.
 */
import { isRegularTradingHours } from '../../contract/newYorkTime';
import { log } from '../log';
import { upstreamProxy } from '../services';
import { onSettingsChange } from '../settings';
import { streamRelay } from '../stream/relayMount';
import { upstreamTarget } from '../upstream';
import { updateTap } from '../updates/tap';
import { FeedHolder, type FeedAccount } from './holder';

/** Does the current key stream (Quant)? Then feeds are relay viewers; else they are polled. */
export async function currentAccount(): Promise<FeedAccount> {
	const target = await upstreamTarget();
	if (!target.customKey) return { streams: false };
	const info = await upstreamProxy().account(target, target.customKey);
	return { streams: typeof info !== 'number' && info.max_level === 'quant' };
}

let holder: FeedHolder | undefined;

/** The process's feed holder (created, and its first decision started, on first use). */
export function feedHolder(): FeedHolder {
	if (!holder) {
		const h = new FeedHolder({
			tap: updateTap(),
			relay: streamRelay(),
			poll: (route) => upstreamProxy().handle('GET', route, new URLSearchParams()),
			account: currentAccount,
			isMarketOpen: isRegularTradingHours,
			log: (message) => log.info(message)
		});
		holder = h;
		const decide = () =>
			void h
				.decide()
				.catch((e: unknown) =>
					log.error('feeds: deciding failed', { error: (e as Error).message })
				);
		onSettingsChange(decide);
		decide();
	}
	return holder;
}

/** Lets go of every held feed (shutdown). */
export function stopFeeds(): void {
	holder?.close();
}
