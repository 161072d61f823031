/**
 * Sessions across replicas (issue 30, cluster mode): a session is a row in the shared database,
 * and each replica follows the table every SYNC_MS (sessionStore.ts). A browser that signed in on
 * one replica and lands on another within that time brings a cookie this one does not hold yet:
 * before the request gate decides, its row is looked up (one indexed read) and, when live, held.
 * One process (no GEXDECK_REDIS_URL) or no teams mode: nothing to do.
 */
import { SESSION_COOKIE, sessionOf } from '../auth';
import { cookieValue } from '../cookies';
import { appDatabase } from '../db/appDb';
import { errorText, log } from '../log';
import { sharedLimits } from '../services';
import { adoptSession } from './sessionStore';
import { teamsMode } from './teams';

export async function adoptClusterSession(cookieHeader: string | undefined): Promise<void> {
	if (!teamsMode() || !sharedLimits()) return;
	const token = cookieValue(cookieHeader ?? null, SESSION_COOKIE);
	if (!token || sessionOf(token)) return;
	try {
		await adoptSession(appDatabase(), token);
	} catch (err) {
		log.warn('session lookup failed', { error: errorText(err) });
	}
}
