/**
 * Teams mode's sessions in the database (`sessions`, migration 3): a row per signed-in browser
 * with its user, when it began, when it was last seen and from which address. The request gate
 * answers from the sessions held in memory (auth.ts); this store writes each new one, restores
 * them at start, and every SYNC_MS compares them with the table: a row deleted (sign-out, sign
 * out everywhere, a disabled user, a role change: from /admin, `npm run user` or another
 * replica) ends the held session and the /stream and /alerts/events connections opened under it.
 */
import {
	dropSessions,
	heldSessions,
	holdSession,
	SESSION_TTL_MS,
	sessionKey,
	type SessionUser
} from '../auth';
import type { Database, Queryable } from '../db';
import { errorText, log } from '../log';
import { isRole } from './roles';

export const SYNC_MS = 2_000;

/** Sessions seen since the last sync: their last_seen_at is written then (one write per sync). */
const seen = new Map<string, number>();

export function touchSession(token: string, now = Date.now()): void {
	seen.set(sessionKey(token), now);
}

export async function persistSession(
	db: Queryable,
	token: string,
	user: SessionUser,
	address: string | null,
	now = Date.now()
): Promise<void> {
	await db.run(
		`INSERT INTO sessions (id_hash, user_id, created_at, last_seen_at, address) VALUES (?, ?, ?, ?, ?)`,
		[sessionKey(token), user.id, now, now, address]
	);
}

export async function deleteSession(db: Queryable, token: string): Promise<void> {
	await db.run(`DELETE FROM sessions WHERE id_hash = ?`, [sessionKey(token)]);
}

type UserEndedListener = (userId: string) => void;
const userEndedListeners = new Set<UserEndedListener>();

/** Called with a user whose every session was ended here (other replicas follow: sessionEnds.ts). */
export function onUserSessionsEnded(listener: UserEndedListener): () => void {
	userEndedListeners.add(listener);
	return () => userEndedListeners.delete(listener);
}

/** End the sessions of `userId` this process holds (their connections close with them). */
export function dropUserSessions(userId: string): void {
	const keys = new Set<string>();
	for (const [key, entry] of heldSessions()) if (entry.user?.id === userId) keys.add(key);
	dropSessions(keys);
}

/** End every session of a user, in the database and here, at once. */
export async function endUserSessions(db: Queryable, userId: string): Promise<number> {
	const n = await db.run(`DELETE FROM sessions WHERE user_id = ?`, [userId]);
	dropUserSessions(userId);
	for (const listener of userEndedListeners) listener(userId);
	return n;
}

/** Make the held sessions match the table (and write last-seen times). */
export async function syncSessions(db: Database, now = Date.now()): Promise<void> {
	await db.run(`DELETE FROM sessions WHERE created_at <= ?`, [now - SESSION_TTL_MS]);
	const touched = [...seen];
	seen.clear();
	for (const [key, at] of touched) {
		await db.run(`UPDATE sessions SET last_seen_at = ? WHERE id_hash = ?`, [at, key]);
	}
	const rows = await db.all(
		`SELECT s.id_hash, s.created_at, u.id, u.name, u.role FROM sessions s
		 JOIN users u ON u.id = s.user_id WHERE u.disabled = ?`,
		[0]
	);
	const live = new Map<string, { expires: number; user: SessionUser }>();
	for (const r of rows) {
		if (!isRole(r.role)) continue;
		live.set(String(r.id_hash), {
			expires: Number(r.created_at) + SESSION_TTL_MS,
			user: { id: String(r.id), name: String(r.name), role: r.role }
		});
	}
	const gone = new Set<string>();
	for (const [key, entry] of heldSessions()) {
		if (!entry.user) continue;
		const row = live.get(key);
		if (!row || row.user.role !== entry.user.role) gone.add(key);
	}
	dropSessions(gone);
	const held = new Set([...heldSessions()].map(([key]) => key));
	for (const [key, entry] of live) {
		if (!held.has(key) && entry.expires > now) holdSession(key, entry, now);
	}
}

/**
 * A session cookie this process does not hold: another replica may have just created it (the
 * table is followed every SYNC_MS). Hold it now when its row says it is live; true if held.
 */
export async function adoptSession(
	db: Queryable,
	token: string,
	now = Date.now()
): Promise<boolean> {
	const r = await db.get(
		`SELECT s.created_at, u.id, u.name, u.role FROM sessions s
		 JOIN users u ON u.id = s.user_id WHERE s.id_hash = ? AND u.disabled = ?`,
		[sessionKey(token), 0]
	);
	if (!r || !isRole(r.role)) return false;
	const expires = Number(r.created_at) + SESSION_TTL_MS;
	if (expires <= now) return false;
	holdSession(
		sessionKey(token),
		{ expires, user: { id: String(r.id), name: String(r.name), role: r.role } },
		now
	);
	return true;
}

let timer: ReturnType<typeof setInterval> | undefined;
/** The database followed: the one of the newest followSessions call. */
let followed: Database | undefined;

/**
 * Restore the table's sessions now, then follow it every SYNC_MS. A later call follows its own
 * database from then on (the first one's timer used to keep reading the first, closed, database).
 */
export async function followSessions(db: Database): Promise<void> {
	followed = db;
	await syncSessions(db);
	timer ??= setInterval(() => {
		if (!followed) return;
		syncSessions(followed).catch((err) =>
			log.error('sessions sync failed', { error: errorText(err) })
		);
	}, SYNC_MS);
	timer.unref?.();
}

/** Stop following the table, before its database closes. */
export function stopFollowingSessions(): void {
	clearInterval(timer);
	timer = undefined;
	followed = undefined;
}
