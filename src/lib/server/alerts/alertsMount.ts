/**
 * The alerts service inside the dashboard: one AlertService per process on the records' database
 * (rules, webhooks and firings), its rules' feeds held by the process's feed holder as the
 * 'alerts' client (streamed or polled as the account allows; the holder re-decides when the keys
 * change). SvelteKit-only (reads the config): the init hook awaits mountAlerts() once, after the
 * database is open.
 */
import { config } from '../config';
import { appDatabase } from '../db/appDb';
import { feedHolder } from '../feeds/feedsMount';
import { log } from '../log';
import { AlertService } from './service';

let service: AlertService | undefined;
let starting: Promise<AlertService> | undefined;

/** The process's alerts service (started by mountAlerts in the init hook). */
export function alertService(): AlertService {
	if (!service) throw new Error('the alerts service is not started yet (the init hook starts it)');
	return service;
}

/** Loads the rules from the database and starts the alerts service and its feeds (once). */
export function mountAlerts(): Promise<AlertService> {
	starting ??= new AlertService({
		db: appDatabase(),
		feeds: feedHolder().client('alerts'),
		sender: { userAgent: config().userAgent, allow: config().webhookAllow },
		log: (message) => log.info(message)
	})
		.start()
		.then((s) => (service = s));
	return starting;
}
