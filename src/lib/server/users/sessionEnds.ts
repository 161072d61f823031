/**
 * Sessions that end on one replica end at once on the others (issue 29: "a role change or
 * disable ends that user's sessions at once, open /stream and SSE connections included"; issue
 * 30: a user may land on any replica). Each replica follows the sessions table every 2 s
 * (users/sessionStore.ts); without more, a `/stream` or `/alerts/events` already open on replica
 * B under a session signed out on A would run on until B's next read. Here a session's end
 * (a sign-out, or one a replica's read found gone) and a user's every session ending (disable,
 * role change, sign out everywhere: sessions A may not hold) are published on a Redis channel,
 * and every other replica ends the sessions it holds of those keys or users: their connections
 * close with them (auth.ts onSessionsEnded). The keys are the sessions' SHA-256
 * (auth.ts sessionKey), never the cookies. The table stays the truth: a message lost while Redis
 * is away is made up by the next read.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { dropSessions, onSessionsEnded } from '../auth';
import { errorText, log } from '../log';
import { dropUserSessions, onUserSessionsEnded } from './sessionStore';

export const SESSION_ENDS_CHANNEL = 'gexdeck:sessions-ended';

interface SessionEndsMessage {
	from: string;
	keys: string[];
	users: string[];
}

function parse(text: string): SessionEndsMessage | undefined {
	try {
		const m = JSON.parse(text) as Partial<SessionEndsMessage>;
		if (typeof m.from !== 'string') return undefined;
		const strings = (list: unknown) =>
			(Array.isArray(list) ? list : [])
				.filter((k): k is string => typeof k === 'string' && k.length <= 128)
				.slice(0, 10_000);
		return { from: m.from, keys: strings(m.keys), users: strings(m.users) };
	} catch {
		return undefined;
	}
}

/**
 * Publish this process's ended sessions on `publisher` and end the others' on `subscriber` (a
 * connection of its own: a subscribed Redis connection takes no other command). Returns stop.
 */
export function shareSessionEnds(publisher: Redis, subscriber: Redis): () => void {
	const me = randomUUID();
	// Ends applied from a message are not published again.
	let applying = false;
	const publish = (keys: string[], users: string[]) => {
		if (applying) return;
		const message: SessionEndsMessage = { from: me, keys, users };
		publisher.publish(SESSION_ENDS_CHANNEL, JSON.stringify(message)).catch((err: unknown) =>
			log.warn('cluster: a session end was not shared (the next sessions read ends it)', {
				error: errorText(err)
			})
		);
	};
	const offKeys = onSessionsEnded((keys) => publish([...keys], []));
	const offUsers = onUserSessionsEnded((user) => publish([], [user]));
	const onMessage = (channel: string, text: string) => {
		if (channel !== SESSION_ENDS_CHANNEL) return;
		const m = parse(text);
		if (!m || m.from === me) return;
		applying = true;
		try {
			if (m.keys.length > 0) dropSessions(new Set(m.keys));
			for (const user of m.users) dropUserSessions(user);
		} finally {
			applying = false;
		}
	};
	subscriber.on('message', onMessage);
	subscriber.subscribe(SESSION_ENDS_CHANNEL).catch((err: unknown) =>
		log.warn('cluster: cannot follow session ends (the sessions read every 2 s still does)', {
			error: errorText(err)
		})
	);
	return () => {
		offKeys();
		offUsers();
		subscriber.off('message', onMessage);
		subscriber.disconnect();
	};
}
