/**
 * The alerts service inside the dashboard: one AlertService per process on the dashboard's data
 * folder, its rules' feeds held by the process's feed holder as the 'alerts' client (streamed or
 * polled as the account allows; the holder re-decides when the keys change).
 * SvelteKit-only (reads the config): call mountAlerts() once from the init hook.
 *
 * In cluster mode the rules are evaluated (and their feeds held) only on the replica holding
 * the upstream slot (cluster/singletonJob.ts), so a firing happens once however many replicas
 * run; every replica still serves the rules' pages.
 */
import { config } from '../config';
import { feedHolder } from '../feeds/feedsMount';
import { log } from '../log';
import { AlertService } from './service';
import { SingletonJob } from '../cluster/singletonJob';
import { slotHoldSignal } from '../stream/relayMount';

let service: AlertService | undefined;
let evaluation: SingletonJob | undefined;

/** The process's alerts service (created and started on first use). */
export function alertService(): AlertService {
	if (service) return service;
	const s = new AlertService({
		dataDir: config().dataDir,
		feeds: feedHolder().client('alerts'),
		sender: { userAgent: config().userAgent, allow: config().webhookAllow },
		log: (message) => log.info(message)
	});
	const signal = slotHoldSignal();
	if (signal) {
		// Cluster mode: evaluated only while this replica holds the slot.
		s.setEvaluating(false);
		evaluation = new SingletonJob(
			'the alert evaluation',
			{ start: () => s.setEvaluating(true), stop: () => s.setEvaluating(false) },
			signal
		);
	}
	service = s.start();
	return service;
}

/** Starts the alerts service and its feeds (idempotent); evaluation once per cluster. */
export function mountAlerts(): AlertService {
	return alertService();
}

/** Whether this replica evaluates the alert rules now (always in one process). */
export function alertsEvaluateHere(): boolean {
	return evaluation?.running ?? true;
}
