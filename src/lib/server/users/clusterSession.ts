/**
 * Sessions across replicas (issue 30, cluster mode): a session is a row in the shared database,
 * and each replica follows the table every SYNC_MS (sessionStore.ts). A browser that signed in on
 * one replica and lands on another within that time brings a cookie this one does not hold yet:
 * before the request gate decides, its row is looked up (one indexed read) and, when live, held.
 * A long-lived connection (`/stream`, `/alerts/events`) is worth that read every time: its row
 * decides, so one opened just after a sign-in elsewhere is accepted and one opened just after a
 * sign-out, a disable or a role change elsewhere is refused, without waiting for the next sync.
 * One process (no GEXDECK_REDIS_URL) or no teams mode: nothing to do.
 */
import { endSession, SESSION_COOKIE, sessionOf } from '../auth';
import { cookieValue } from '../cookies';
import { appDatabase } from '../db/appDb';
import { errorText, log } from '../log';
import { connectRedis } from '../cluster/redis';
import { config } from '../config';
import { sharedLimits } from '../services';
import { shareSessionEnds } from './sessionEnds';
import { adoptSession } from './sessionStore';
import { teamsMode } from './teams';

/**
 * Before the gate decides on a request bringing `cookieHeader`. `connection`: it opens a
 * `/stream` or `/alerts/events` connection, so a held session is checked against its row too.
 */
export async function adoptClusterSession(
	cookieHeader: string | undefined,
	connection = false
): Promise<void> {
	if (!teamsMode() || !sharedLimits()) return;
	const token = cookieValue(cookieHeader ?? null, SESSION_COOKIE);
	if (!token) return;
	const held = sessionOf(token) !== undefined;
	if (held && !connection) return;
	try {
		const live = await adoptSession(appDatabase(), token);
		// Ended on another replica since this one last read the table: end it here now.
		if (!live && held) endSession(token);
	} catch (err) {
		log.warn('session lookup failed', { error: errorText(err) });
	}
}

let sharing: (() => void) | undefined;

/**
 * Cluster mode: sessions ended here end at once on the other replicas, and theirs here
 * (sessionEnds.ts); nothing in one process. Called once at start.
 */
export function followClusterSessionEnds(): void {
	const shared = sharedLimits();
	const { redisUrl } = config();
	if (sharing || !shared || !redisUrl) return;
	sharing = shareSessionEnds(shared.redis, connectRedis(redisUrl, 'gexdeck-sessions'));
}
