/**
 * The dashboard's own address for links it hands out (firing links in webhooks, the feed URLs a
 * charting platform is given): ORIGIN when set, else the address this request came to over plain
 * http. adapter-node serves http only; without ORIGIN its url.origin guesses https, which gave
 * links that do not open.
 */
import { config } from './config';

export function dashboardOrigin(url: URL): string {
	return config().origin ?? `http://${url.host}`;
}
