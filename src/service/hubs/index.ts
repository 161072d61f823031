/**
 * The WebSocket half of the embedded service: `/v2/negotiate` (POST, GET, PATCH) and the hubs at
 * `/client/hubs/{hub}`, on the same server, accounts and market as the REST routes.
 *
 *   const service = await startService(...);
 *   const hubs = await attachHubs(service);
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AccountRegistry } from '../accounts/registry';
import type { ExtraRouteHandler } from '../http/router';
import { sendError } from '../http/respond';
import type { MarketSource, TickEvent } from '../source';
import { DEFAULT_MAX_BUFFERED_BYTES, GOING_AWAY } from './connection';
import { Fanout, type FanoutStats, type GroupEncoder } from './fanout';
import { createGroupEncoder, type AnyEncoder } from './frames';
import { handleNegotiate, NEGOTIATE_PATH } from './negotiate';
import { GroupPlanner } from './planner';
import { SlotManager } from './slots';
import { AccessTokens } from './tokens';
import { HubAcceptor, refuse } from './upgrade';
import type { ReliableRegistry } from './reliable';
import { encodeFrame, initWireEncoder } from '../../lib/wire/encode';
import { errorText, log } from '../../lib/server/log';

/** What attachHubs needs of the running service (RunningService of server.ts satisfies it). */
export interface HubHost {
	server: Server;
	market: MarketSource;
	accounts: AccountRegistry;
	addRoute(path: string, handler: ExtraRouteHandler): void;
	addPrefixRoute(prefix: string, handler: ExtraRouteHandler): void;
	onClose(fn: () => void | Promise<void>): void;
	/** Origin written into the negotiated URLs; default: the request's Host. */
	context?: { publicOrigin?: string };
}

export interface HubsOptions {
	/** HMAC secret of the access tokens; default: 32 random bytes per process. */
	tokenSecret?: Buffer | string;
	/** Clock of the 15-minute URL window (unix ms); default wall time, like key expiry. */
	now?: () => number;
	/** Bytes a connection may have queued before it is closed as too slow (default 8 MiB). */
	maxBufferedBytes?: number;
	/** Reliable protocol: bytes of resend buffer per connection (default 8 MiB). */
	maxResendBytes?: number;
	/** Reliable protocol: how long a dropped connection may be resumed (default 30 s). */
	recoveryWindowMs?: number;
	/** Server-side WebSocket ping interval (default 30 s); a peer silent for two is cut. */
	pingIntervalMs?: number;
	publicOrigin?: string;
}

export interface Hubs {
	slots: SlotManager;
	tokens: AccessTokens;
	/** Reliable-protocol connections (live and resumable). */
	reliable: ReliableRegistry;
	/** Delivers one tick now (the market's ticks arrive here by themselves; bench and tests). */
	deliver(tick: TickEvent): FanoutStats;
	/** What the last tick did. */
	lastStats(): FanoutStats | undefined;
	close(): void;
}

/** Servers with hubs attached: a second attach would answer every upgrade twice. */
const attached = new WeakSet<Server>();

export async function attachHubs(host: HubHost, options: HubsOptions = {}): Promise<Hubs> {
	if (attached.has(host.server)) throw new Error('hubs are already attached to this server');
	attached.add(host.server);
	// The zstd wasm module must be instantiated before the first tick is encoded.
	await initWireEncoder();
	// Payload values are the REST-shaped objects the wire codec's FramePayloads describe.
	const encodeAny: AnyEncoder = (frame, value) => encodeFrame(frame, value as never);
	const tokens = new AccessTokens(options.tokenSecret, options.now);
	const slots = new SlotManager();
	const planner = new GroupPlanner(host.market);
	const limitOf = (accountId: string) => {
		const account = host.accounts.accounts.find((a) => a._id === accountId);
		return account ? host.accounts.groupLimit(account) : 0;
	};
	const acceptor = new HubAcceptor({
		tokens,
		slots,
		isHub: (hub) => planner.isHub(hub),
		legacyJoinError: (slot, hub, group) =>
			planner.legacyJoinError(slot, hub, group, limitOf(slot.account)),
		maxBufferedBytes: options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
		maxResendBytes: options.maxResendBytes,
		recoveryWindowMs: options.recoveryWindowMs
	});
	const encoder: GroupEncoder = createGroupEncoder(encodeAny);
	const fanout = new Fanout(slots, encoder);
	let stats: FanoutStats | undefined;

	const deliver = (tick: TickEvent): FanoutStats => (stats = fanout.deliver(tick));
	const unsubscribe = host.market.onTick((tick) => {
		try {
			deliver(tick);
		} catch (err) {
			// A broken frame must not stop the market's loop; the next tick tries again.
			log.error('hubs: fan-out failed', { error: errorText(err) });
		}
	});

	const negotiateDeps = {
		accounts: host.accounts,
		slots,
		tokens,
		planner,
		publicOrigin: options.publicOrigin ?? host.context?.publicOrigin
	};
	host.addRoute(NEGOTIATE_PATH, (req, res) => handleNegotiate(req, res, negotiateDeps));
	host.addPrefixRoute('/client/hubs/', (_req: IncomingMessage, res: ServerResponse) =>
		sendError(res, 426, 'This is a WebSocket endpoint: connect with a WebSocket client.', {
			Upgrade: 'websocket'
		})
	);

	const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
		try {
			if (acceptor.handleUpgrade(req, socket, head)) return;
		} catch (err) {
			// A bug in the handshake path answers this one upgrade, never the process.
			log.error('hubs: upgrade failed', { error: errorText(err) });
			refuse(socket, 500, 'Internal error.');
			return;
		}
		// Nobody else listens for upgrades on this server: refuse instead of leaving it hanging.
		if (host.server.listenerCount('upgrade') === 1) refuse(socket, 404, 'Not found.');
	};
	host.server.on('upgrade', onUpgrade);

	const heartbeat = setInterval(() => acceptor.heartbeat(), options.pingIntervalMs ?? 30_000);
	heartbeat.unref();

	let closed = false;
	const close = () => {
		if (closed) return;
		closed = true;
		unsubscribe();
		clearInterval(heartbeat);
		host.server.off('upgrade', onUpgrade);
		attached.delete(host.server);
		slots.closeAll('Service shutting down', GOING_AWAY);
		acceptor.close();
	};
	host.onClose(close);

	return { slots, tokens, reliable: acceptor.reliable, deliver, lastStats: () => stats, close };
}
