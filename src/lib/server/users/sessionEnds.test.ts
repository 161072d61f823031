/**
 * Session ends shared between replicas (sessionEnds.ts) on a real redis-server: this process's
 * ends are published (a sign-out's keys; a user's every session), another replica's message
 * ends the sessions held here and closes their connections (onSessionsEnded), and what is
 * applied from a message is not published again.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RunningRedis } from '../../../../tests/support/redis';
import { createSession, endSession, onSessionsEnded, sessionKey, sessionOf } from '../auth';
import { connectRedis } from '../cluster/redis';
import { SESSION_ENDS_CHANNEL, shareSessionEnds } from './sessionEnds';
import type { Queryable } from '../db/types';
import { endUserSessions } from './sessionStore';

let redis: RunningRedis;
const clients: Redis[] = [];
beforeAll(async () => {
	redis = await startRedis();
}, 30_000);
afterAll(async () => {
	for (const c of clients) c.disconnect();
	await redis?.stop();
});

function client(): Redis {
	const c = connectRedis(redis.url);
	clients.push(c);
	return c;
}

async function until(check: () => boolean, what: string): Promise<void> {
	const end = Date.now() + 5_000;
	while (!check()) {
		if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 10));
	}
}

describe('shareSessionEnds', () => {
	it("ends here what another replica ended, by key and by user, and publishes this one's ends once", async () => {
		// "Another replica": a raw publisher and a raw listener on the channel.
		const other = client();
		const listener = client();
		const heard: { keys: string[]; users: string[] }[] = [];
		listener.on('message', (_c: string, text: string) => {
			if (text.startsWith('{"from"')) heard.push(JSON.parse(text));
		});
		await listener.subscribe(SESSION_ENDS_CHANNEL);
		const subscriber = client();
		const stop = shareSessionEnds(client(), subscriber);
		await until(
			() => subscriber.status === 'ready' && subscriber.mode === 'subscriber',
			'subscribed'
		);
		const closed: string[] = [];
		const off = onSessionsEnded((keys) => closed.push(...keys));
		try {
			const alice = { id: 'u-alice', name: 'alice', role: 'trader' as const };
			const bob = { id: 'u-bob', name: 'bob', role: 'trader' as const };
			const a1 = createSession(Date.now(), alice);
			const a2 = createSession(Date.now(), alice);
			const b1 = createSession(Date.now(), bob);

			// Another replica signed a1 out: it ends here at once, and is not published back.
			await other.publish(
				SESSION_ENDS_CHANNEL,
				JSON.stringify({ from: 'replica-b', keys: [sessionKey(a1)], users: [] })
			);
			await until(() => sessionOf(a1) === undefined, 'a1 ended');
			expect(closed).toEqual([sessionKey(a1)]);
			expect(sessionOf(a2)).toBeDefined();

			// Another replica disabled bob (sessions it may not hold): bob's end here.
			await other.publish(
				SESSION_ENDS_CHANNEL,
				JSON.stringify({ from: 'replica-b', keys: [], users: ['u-bob'] })
			);
			await until(() => sessionOf(b1) === undefined, 'bob ended');
			expect(sessionOf(a2)).toBeDefined();

			// Junk on the channel ends nothing.
			await other.publish(SESSION_ENDS_CHANNEL, 'not json');
			await other.publish(SESSION_ENDS_CHANNEL, JSON.stringify({ keys: [sessionKey(a2)] }));

			// This replica's own ends: a sign-out by key, and a user's every session.
			endSession(a2);
			await until(() => heard.some((m) => m.keys.includes(sessionKey(a2))), 'a2 published');
			// The applied messages were not published again: only this replica's own end was.
			expect(heard.filter((m) => m.keys.length > 0).map((m) => m.keys)).toEqual([
				[sessionKey(a1)],
				[sessionKey(a2)]
			]);

			// An admin here disabled carol: her sessions elsewhere end by her id.
			const carol = createSession(Date.now(), { id: 'u-carol', name: 'carol', role: 'viewer' });
			await endUserSessions({ run: async () => 1 } as unknown as Queryable, 'u-carol');
			expect(sessionOf(carol)).toBeUndefined();
			await until(() => heard.some((m) => m.users.includes('u-carol')), 'carol published');
		} finally {
			off();
			stop();
		}
	});
});
