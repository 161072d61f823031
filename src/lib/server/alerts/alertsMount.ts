/**
 * The alerts service inside the dashboard: one AlertService per process on the dashboard's data
 * folder, the process's update tap and stream relay, polling through the process's proxy. The
 * feed follows the account: a streaming (Quant) key holds the rules' groups in the relay, any
 * other key polls; checked at start and every minute (keys can change on the Account page).
 * SvelteKit-only (reads the config): call mountAlerts() once from the init hook.
 */
import { isRegularTradingHours } from '../../contract/newYorkTime';
import { config } from '../config';
import { log } from '../log';
import { accountStreams } from '../recorder/recorderMount';
import { upstreamProxy } from '../services';
import { streamRelay } from '../stream/relayMount';
import { updateTap } from '../updates/tap';
import { AlertService } from './service';

let service: AlertService | undefined;
let modeTimer: ReturnType<typeof setInterval> | undefined;

/** The process's alerts service (created and started on first use). */
export function alertService(): AlertService {
	service ??= new AlertService({
		dataDir: config().dataDir,
		tap: updateTap(),
		relay: streamRelay(),
		poll: (path) => upstreamProxy().handle('GET', path, new URLSearchParams()),
		isMarketOpen: () => isRegularTradingHours(Date.now()),
		sender: { userAgent: config().userAgent, allow: config().webhookAllow },
		log: (message) => log.info(message)
	}).start();
	return service;
}

async function applyFeedMode(s: AlertService): Promise<void> {
	const streams = await accountStreams().catch(() => false);
	s.setFeedMode(streams ? 'stream' : 'poll');
}

/** Starts the alerts service and its feed (idempotent). */
export function mountAlerts(): AlertService {
	const s = alertService();
	if (!modeTimer) {
		void applyFeedMode(s);
		modeTimer = setInterval(() => void applyFeedMode(s), 60_000);
		modeTimer.unref?.();
	}
	return s;
}
