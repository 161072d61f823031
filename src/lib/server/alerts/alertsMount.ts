/**
 * The alerts service inside the dashboard: one AlertService per process on the dashboard's data
 * folder, its rules' feeds held by the process's feed holder as the 'alerts' client (streamed or
 * polled as the account allows; the holder re-decides when the keys change).
 * SvelteKit-only (reads the config): call mountAlerts() once from the init hook.
 */
import { config } from '../config';
import { feedHolder } from '../feeds/feedsMount';
import { log } from '../log';
import { AlertService } from './service';

let service: AlertService | undefined;

/** The process's alerts service (created and started on first use). */
export function alertService(): AlertService {
	service ??= new AlertService({
		dataDir: config().dataDir,
		feeds: feedHolder().client('alerts'),
		sender: { userAgent: config().userAgent, allow: config().webhookAllow },
		log: (message) => log.info(message)
	}).start();
	return service;
}

/** Starts the alerts service and its feeds (idempotent). */
export function mountAlerts(): AlertService {
	return alertService();
}
