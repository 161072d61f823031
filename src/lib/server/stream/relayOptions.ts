/**
 * The stream relay's settings and counters (see relay.ts).
 */
import type { UpdateTap } from '../updates/tap';
import type { RelayCluster } from './relayCluster';

/** Where the relay negotiates, and with which key. */
export interface RelayTarget {
	/** Upstream base URL including `/v2` (the embedded service's `url`, or api.gex.bot/v2). */
	baseUrl: string;
	/** The account's custom-script key (`gexbot_custom_...`); undefined = none configured. */
	key: string | undefined;
}

export interface StreamRelayOptions {
	/** Fixed upstream base URL (with `key`), or use `target`. */
	baseUrl?: string;
	/** Fixed custom-script key (with `baseUrl`), or use `target`. */
	key?: string;
	/**
	 * The current upstream and key, asked before each negotiation (the dashboard's settings can
	 * change them; a change takes effect with a new POST).
	 */
	target?: () => RelayTarget | Promise<RelayTarget>;
	/** `gexdeck/<version>`, sent on negotiation and on the hub upgrades. */
	userAgent: string;
	/** The account's membership limit (whoami's group limit; default 150). */
	groupLimit?: number;
	/** Backoff of retries: first delay and cap (ms). Default 1 s, 60 s. */
	backoff?: { baseMs?: number; maxMs?: number };
	/** URLs older than this are not used to connect (default: the 15 min window minus 1 min). */
	urlTtlMs?: number;
	/** Bytes a viewer may have in flight before its frames are coalesced (latest-only). */
	viewerHighWater?: number;
	/** Bounds of one negotiation request and one hub handshake (ms); default 10 s each. */
	timeouts?: { negotiateMs?: number; handshakeMs?: number };
	now?: () => number;
	random?: () => number;
	fetch?: typeof fetch;
	log?: (message: string) => void;
	/** Every received group frame is published here (recorder, alerts); see updates/tap. */
	tap?: UpdateTap;
	/**
	 * Cluster mode (relayCluster.ts): negotiate only while this replica holds the slot lease,
	 * publish upstream frames to Redis, deliver what the cluster's stream yields.
	 */
	cluster?: RelayCluster;
}

export interface RelayCounters {
	posts: number;
	patches: number;
	/** Hub connections opened (first connects and reconnects). */
	hubConnects: number;
	/** Hubs that dropped while the relay held the slot. */
	hubDrops: number;
	framesIn: number;
	bytesIn: number;
	/** Frame deliveries to viewers (one frame to three viewers counts three). */
	framesOut: number;
	/** Duplicate spot frames (one calculation arrives on each hub of its ticker) not re-sent. */
	spotDuplicates: number;
}

export function newRelayCounters(): RelayCounters {
	return {
		posts: 0,
		patches: 0,
		hubConnects: 0,
		hubDrops: 0,
		framesIn: 0,
		bytesIn: 0,
		framesOut: 0,
		spotDuplicates: 0
	};
}
