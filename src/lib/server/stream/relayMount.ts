/**
 * The relay inside the dashboard: one StreamRelay per process, negotiating with the upstream
 * and custom-script key the dashboard currently uses (settings, environment or the embedded
 * demo account), and its `/stream` endpoint on the dashboard's http.Server (httpServer.ts), behind the
 * same request gate as every other dashboard route (requestGate.ts: Host and Origin allowlist,
 * the session cookie when a password is set, loopback only without one).
 *
 * SvelteKit-only (it reads the dashboard's config): call mountStreamRelay() once from the init
 * hook in src/hooks.server.ts. It negotiates again by itself when the settings (keys) change.
 */
import type { IncomingMessage } from 'node:http';
import { config } from '../config';
import { onHttpServer } from '../httpServer';
import { log } from '../log';
import { onSessionsEnded, SESSION_COOKIE, sessionKey } from '../auth';
import { checkNodeRequest, clientAddressOf } from '../requestGate';
import { onSettingsChange } from '../settings';
import { upstreamTarget } from '../upstream';
import { updateTap } from '../updates/tap';
import { RESTARTING_CLOSE_CODE, STREAM_PATH } from '../../relay/protocol';
import { attachStreamEndpoint, cookieOf, type StreamEndpoint } from './endpoint';
import { StreamRelay } from './relay';
import { sharedLimits } from '../services';
import { connectRedis } from '../cluster/redis';
import type { SlotInfo } from '../cluster/slotLease';
import type { HoldSignal } from '../cluster/singletonJob';
import { RelayCluster } from './relayCluster';
import { userCaller } from '../usage/callShares';
import type { Holding } from '../usage/memberships';
import { SharedHoldings } from '../cluster/sharedHoldings';
import { adoptClusterSession } from '../users/clusterSession';

let relay: StreamRelay | undefined;
let cluster: RelayCluster | undefined;
let holdings: SharedHoldings | undefined;
let mounted = false;
let endpoint: StreamEndpoint | undefined;

/** The process's relay (created on first use). */
export function streamRelay(): StreamRelay {
	if (relay) return relay;
	// Cluster mode: the replicas share the slot by a lease and relay through Redis Streams.
	const shared = sharedLimits();
	const { redisUrl } = config();
	if (shared && redisUrl) {
		cluster = new RelayCluster(
			shared.redis,
			connectRedis(redisUrl, 'gexdeck-frames'),
			shared.replicas.id
		);
	}
	relay = new StreamRelay({
		target: async () => {
			const t = await upstreamTarget();
			return { baseUrl: t.baseUrl, key: t.customKey };
		},
		userAgent: config().userAgent,
		tap: updateTap(),
		log: (message) => log.info(message),
		cluster
	});
	// New keys or another demo account: negotiate again (the slot and its groups may differ).
	onSettingsChange(() => relay?.refresh());
	if (shared && redisUrl) {
		// Whose each viewer is, for the Account page on every replica (usage/memberships.ts).
		const r = relay;
		holdings = new SharedHoldings(shared.redis, shared.replicas.id);
		holdings.start(() => r.holdings());
	}
	return relay;
}

/** Every viewer's owner and groups: this process's, and in cluster mode every replica's. */
export async function allHoldings(): Promise<Holding[]> {
	const own = streamRelay().holdings();
	const shared = sharedLimits();
	if (!holdings || !shared) return own;
	const replicas = await shared.replicas.list();
	return holdings.all(
		replicas.map((c) => c.id),
		own
	);
}

/** Cluster mode: the slot lease singleton jobs follow (cluster/singletonJob.ts); else undefined. */
export function slotHoldSignal(): HoldSignal | undefined {
	streamRelay();
	return cluster;
}

/** Cluster mode: who holds the upstream slot, since when, the last failover (else undefined). */
export function clusterSlotInfo(): Promise<SlotInfo> | undefined {
	streamRelay();
	return cluster?.info();
}

/**
 * The request gate decides, as for every other entry point; in cluster mode after the session's
 * row is read (a sign-in or a sign-out on another replica a moment ago counts at once).
 */
export async function authorizeViewer(
	req: IncomingMessage
): Promise<true | { status: number; message: string }> {
	await adoptClusterSession(req.headers.cookie, true);
	const verdict = checkNodeRequest(req, STREAM_PATH);
	return verdict.ok ? true : { status: verdict.status, message: verdict.error };
}

/** The client a viewer counts against: its session when it has one, else its address. */
function clientOf(req: IncomingMessage): string {
	const session = cookieOf(req, SESSION_COOKIE);
	return session ? `session ${sessionKey(session)}` : `address ${clientAddressOf(req) ?? '?'}`;
}

/** Whose share of the slot a viewer is: the user the gate let through (usage/callShares.ts). */
function ownerOf(req: IncomingMessage): string | undefined {
	const verdict = checkNodeRequest(req, STREAM_PATH);
	return verdict.ok && verdict.user ? userCaller(verdict.user.id) : undefined;
}

/** Registers `/stream` on the dashboard's server once it is known (see httpServer.ts). */
export function mountStreamRelay(): StreamRelay {
	const r = streamRelay();
	if (mounted) return r;
	mounted = true;
	onHttpServer((server) => {
		const attached = attachStreamEndpoint(server, r, authorizeViewer, {
			// The gate checks Origin against the Host allowlist, stricter than Origin == Host.
			sameOrigin: false,
			clientOf,
			ownerOf
		});
		endpoint = attached;
		// A session that ends (sign-out, disable, role change, sign out everywhere) takes its
		// viewers with it at once; the page's reconnect then meets the login.
		const off = onSessionsEnded((keys) => {
			for (const key of keys) attached.closeClient(`session ${key}`, 1008, 'Session ended');
		});
		server.once('close', off);
		server.once('close', () => {
			attached.close();
			void r.close();
		});
	});
	return r;
}

/**
 * Graceful shutdown: every viewer is closed with the "restarting" code (the page reconnects
 * on its own once the dashboard is back), then the upstream hubs are closed so the account's
 * WebSocket slot is free for the next process.
 */
export async function stopStreamRelay(): Promise<void> {
	endpoint?.close(RESTARTING_CLOSE_CODE, 'Dashboard restarting');
	await holdings?.stop();
	await relay?.close();
}
