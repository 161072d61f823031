/**
 * The cluster's frame streams (issue 30 item 2): the slot holder appends every relayed upstream
 * frame to one Redis Stream per hub, and every replica reads them back for its own viewers,
 * the stream id being the frame's sequence (a reader resumes after the last id it saw).
 *
 * - publish() is fenced: one Lua script appends only while the slot lease (slotLease.ts) still
 *   holds the caller's `<replica> <token>`, so a holder that lost the lease (stalled, cut off)
 *   cannot add a frame after its successor started. It also trims the stream by time
 *   (XADD MINID, exact: entries older than `retainMs` by Redis's clock go).
 * - SlotStreamReader follows the hubs' streams on its own connection (XREAD BLOCK), in order,
 *   from the ids it is given; after() replays what a reconnecting viewer missed and says when
 *   the ids it asks for were already trimmed (a reported gap, never a silent one).
 * - A new holder appends a gap marker (publishGap: an entry of no group whose payload is the
 *   text) before its first frame: the frames the upstream sent while nobody held the slot are
 *   missing, and every reader, live or replaying, reports the marker where it sits.
 */
import type { Redis } from 'ioredis';
import { guarded } from './redis';

/**
 * KEYS: lease, stream, trimmed. ARGV: lease value, retain ms, group, any. The id, or nil when
 * fenced. MINID trims a prefix of the stream; the newest id it removes is kept in `trimmed` so a
 * replay knows whether frames after a viewer's last id are gone (XINFO does not count trims).
 */
const PUBLISH = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return false end
local t = redis.call('TIME')
local minid = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) - tonumber(ARGV[2])
local old = redis.call('XREVRANGE', KEYS[2], '(' .. minid .. '-0', '-', 'COUNT', 1)
if old[1] then redis.call('SET', KEYS[3], old[1][1]) end
return redis.call('XADD', KEYS[2], 'MINID', minid, '*', 'g', ARGV[3], 'a', ARGV[4])
`;

/** Suffix of the key holding a hub stream's newest trimmed id. */
const TRIMMED = ':trimmed';

export interface StreamFrame {
	hub: string;
	/** Redis Stream id (`<ms>-<n>`): the frame's sequence within its hub. */
	id: string;
	group: string;
	any: Buffer;
	/** A gap marker's text (publishGap): no group frame, frames are missing before this one. */
	gap?: string;
}

export interface SlotStreamKeys {
	/** The slot lease's key (slotLease.ts: `<prefix>:lease`). */
	lease: string;
	/** Stream key prefix; the hub's name is appended. */
	frames: string;
}

export function slotStreamKeys(prefix = 'gexdeck:slot'): SlotStreamKeys {
	return { lease: `${prefix}:lease`, frames: `${prefix}:frames:` };
}

/** Compare two stream ids (`ms-n`): negative when a is older. */
export function compareIds(a: string, b: string): number {
	const [am, an] = a.split('-').map(BigInt);
	const [bm, bn] = b.split('-').map(BigInt);
	if (am !== bm) return am < bm ? -1 : 1;
	return an === bn ? 0 : an < bn ? -1 : 1;
}

export class SlotStreamPublisher {
	constructor(
		private readonly redis: Redis,
		private readonly keys: SlotStreamKeys,
		private readonly retainMs = 10 * 60_000
	) {}

	/**
	 * Append one frame while `leaseValue` (`<replica> <token>`) holds the lease; the stream id,
	 * or undefined when the lease is not (any longer) ours.
	 */
	async publish(
		leaseValue: string,
		hub: string,
		group: string,
		any: Uint8Array
	): Promise<string | undefined> {
		const id = await guarded(() =>
			this.redis.eval(
				PUBLISH,
				3,
				this.keys.lease,
				this.keys.frames + hub,
				this.keys.frames + hub + TRIMMED,
				leaseValue,
				this.retainMs,
				group,
				Buffer.from(any.buffer, any.byteOffset, any.byteLength)
			)
		);
		return typeof id === 'string' ? id : undefined;
	}

	/** Append a gap marker (no group; the text says what is missing), fenced like publish. */
	publishGap(leaseValue: string, hub: string, text: string): Promise<string | undefined> {
		return this.publish(leaseValue, hub, '', new TextEncoder().encode(text));
	}
}

type RawEntries = [Buffer, Buffer[]][];

function toFrames(hub: string, entries: RawEntries): StreamFrame[] {
	return entries.map(([id, fields]) => {
		const f = new Map<string, Buffer>();
		for (let i = 0; i + 1 < fields.length; i += 2) f.set(fields[i].toString(), fields[i + 1]);
		const frame: StreamFrame = {
			hub,
			id: id.toString(),
			group: f.get('g')?.toString() ?? '',
			any: f.get('a') ?? Buffer.alloc(0)
		};
		if (frame.group === '') frame.gap = frame.any.toString();
		return frame;
	});
}

export interface Replay {
	frames: StreamFrame[];
	/** The asked-for id was already trimmed: frames between it and the first one are lost. */
	gap: boolean;
}

/**
 * Frames of `hub` after `id`, oldest first, on any connection (not one held by XREAD BLOCK);
 * `gap` when frames right after `id` were already trimmed away.
 */
export async function readAfter(
	redis: Redis,
	keys: SlotStreamKeys,
	hub: string,
	id: string,
	count = 10_000
): Promise<Replay> {
	const key = keys.frames + hub;
	const [entries, trimmedUpTo, oldest] = await guarded(() =>
		Promise.all([
			redis.xrangeBuffer(key, `(${id}`, '+', 'COUNT', count) as Promise<RawEntries>,
			redis.get(key + TRIMMED).then((id) => id ?? '0-0'),
			redis.xrange(key, '-', '+', 'COUNT', 1).then((e) => e[0]?.[0])
		])
	);
	// Frames after `id` are gone when the newest trimmed id is later than `id`, or when the
	// stream starts after `id` without having trimmed it (Redis restarted: the stream is new).
	const gap =
		compareIds(id, trimmedUpTo) < 0 || (oldest !== undefined && compareIds(oldest, id) > 0);
	return { frames: toFrames(hub, entries), gap };
}

export class SlotStreamReader {
	private readonly last = new Map<string, string>();
	private stopped = false;
	private running: Promise<void> | undefined;

	/**
	 * `redis` must be this reader's own connection (XREAD BLOCK holds it). `from` gives a start
	 * id per hub (default `$`: only frames appended from now on).
	 */
	constructor(
		private readonly redis: Redis,
		private readonly keys: SlotStreamKeys,
		hubs: readonly string[],
		private readonly onFrame: (frame: StreamFrame) => void,
		from: Record<string, string> = {},
		private readonly blockMs = 1_000
	) {
		for (const hub of hubs) this.last.set(hub, from[hub] ?? '$');
	}

	/** The id of the last frame read per hub. */
	position(): Record<string, string> {
		return Object.fromEntries(this.last);
	}

	start(): void {
		this.running ??= this.loop();
	}

	async stop(): Promise<void> {
		this.stopped = true;
		this.redis.disconnect();
		await this.running;
	}

	/** Frames of `hub` after `id` (a reconnecting viewer's last one), oldest first. */
	after(hub: string, id: string, count = 10_000): Promise<Replay> {
		return readAfter(this.redis, this.keys, hub, id, count);
	}

	private async loop(): Promise<void> {
		// `$` means "after what is there now": pin it to an id once, so frames appended while a
		// batch is handled are not skipped by the next XREAD.
		for (const [hub, id] of this.last) {
			if (id !== '$') continue;
			const newest = (await this.redis
				.xrevrangeBuffer(this.keys.frames + hub, '+', '-', 'COUNT', 1)
				.catch(() => undefined)) as RawEntries | undefined;
			// Redis away: keep `$` (XREAD takes it too, only less exactly).
			if (newest) this.last.set(hub, newest[0]?.[0].toString() ?? '0-0');
		}
		while (!this.stopped) {
			const hubs = [...this.last.keys()];
			let answer: [Buffer, RawEntries][] | null;
			try {
				answer = (await this.redis.xreadBuffer(
					'BLOCK',
					this.blockMs,
					'STREAMS',
					...hubs.map((h) => this.keys.frames + h),
					...hubs.map((h) => this.last.get(h)!)
				)) as [Buffer, RawEntries][] | null;
			} catch {
				if (this.stopped) return;
				// Redis away: ioredis reconnects; try again shortly from the same ids.
				await new Promise((r) => setTimeout(r, 200));
				continue;
			}
			for (const [key, entries] of answer ?? []) {
				const hub = key.toString().slice(this.keys.frames.length);
				for (const frame of toFrames(hub, entries)) {
					this.last.set(hub, frame.id);
					this.onFrame(frame);
				}
			}
		}
	}
}
