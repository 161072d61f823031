/**
 * The alerts service inside the dashboard: one AlertService per process on the records' database
 * (rules, webhooks and firings), its rules' feeds held by the process's feed holder as the
 * 'alerts' client (streamed or polled as the account allows; the holder re-decides when the keys
 * change). SvelteKit-only (reads the config): the init hook awaits mountAlerts() once, after the
 * database is open.
 *
 * In cluster mode the rules are evaluated (and their feeds held) only on the replica holding
 * the upstream slot (cluster/singletonJob.ts); every replica still serves the rules' pages, and a
 * firing's idempotency key in the database (firingLog.ts) keeps a hand-over from delivering one
 * twice.
 */
import { config } from '../config';
import { appDatabase } from '../db/appDb';
import { feedHolder } from '../feeds/feedsMount';
import { log } from '../log';
import { AlertService } from './service';
import { SingletonJob } from '../cluster/singletonJob';
import { slotHoldSignal } from '../stream/relayMount';

let service: AlertService | undefined;
let starting: Promise<AlertService> | undefined;
let evaluation: SingletonJob | undefined;

/** The process's alerts service (started by mountAlerts in the init hook). */
export function alertService(): AlertService {
	if (!service) throw new Error('the alerts service is not started yet (the init hook starts it)');
	return service;
}

/**
 * Loads the rules from the database and starts the alerts service and its feeds (once); in
 * cluster mode the evaluation runs once per cluster.
 */
export function mountAlerts(): Promise<AlertService> {
	if (starting) return starting;
	const signal = slotHoldSignal();
	const s = new AlertService({
		db: appDatabase(),
		feeds: feedHolder().client('alerts'),
		sender: { userAgent: config().userAgent, allow: config().webhookAllow },
		// Cluster mode: a firing another replica delivered reaches this replica's tabs too.
		followFirings: signal !== undefined,
		log: (message) => log.info(message)
	});
	if (signal) {
		// Cluster mode: evaluated only while this replica holds the slot.
		void s.setEvaluating(false);
		evaluation = new SingletonJob(
			'the alert evaluation',
			{ start: () => void s.setEvaluating(true), stop: () => void s.setEvaluating(false) },
			signal
		);
	}
	starting = s.start().then((started) => (service = started));
	return starting;
}

/** Whether this replica evaluates the alert rules now (always in one process). */
export function alertsEvaluateHere(): boolean {
	return evaluation?.running ?? true;
}
