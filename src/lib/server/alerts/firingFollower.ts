/**
 * Firings another replica delivered, brought to this replica's open tabs (cluster mode). The
 * alert rules are evaluated on the slot holder only, and a firing is delivered by the process
 * whose insert of it won (firingLog.ts), so without this a tab connected to any other replica
 * would never hear of a firing. Every replica reads the new rows of alert_firings once a
 * second and hands each one it did not insert itself to its listeners (the tabs' /alerts/events
 * streams, which pick the rule owner's); webhooks stay with the winner alone.
 *
 * Rows are found by the firing's wall time with a look-back (replicas' clocks and a slow
 * insert), and a key is handed on once: keys seen stay known for the look-back.
 */
import type { AlertFiring } from '../../alerts/firing';
import type { Database } from '../db/index';

/** How often the table is read. */
export const FOLLOW_MS = 1000;
/** How far behind the newest firing seen a row is still looked for. */
export const LOOKBACK_MS = 15_000;

export class FiringFollower {
	/** Idempotency keys handed on or inserted here, with their firing's wall time (ms). */
	private readonly seen = new Map<string, number>();
	private since: number;
	private timer: ReturnType<typeof setInterval> | undefined;
	private reading = false;

	constructor(
		private readonly db: Database,
		private readonly deliver: (firing: AlertFiring, owner: string) => void,
		private readonly log: (message: string) => void = () => undefined,
		now: () => number = Date.now
	) {
		// Firings from before this replica started are old news.
		this.since = now();
	}

	/**
	 * A firing this replica is about to insert: not handed on by a read that meets its row before
	 * the insert's answer (forget() it when the insert lost: then it is another replica's).
	 */
	markSeen(key: string, firedAt: number): void {
		this.seen.set(key, firedAt);
	}

	forget(key: string): void {
		this.seen.delete(key);
	}

	/** Knows the rows already there (old news, never handed on), then reads every FOLLOW_MS. */
	async start(): Promise<void> {
		if (this.timer) return;
		await this.poll(false);
		this.timer = setInterval(() => void this.poll(), FOLLOW_MS);
		this.timer.unref?.();
	}

	/** Reads the rows since the look-back and hands on (`deliver`) the ones not seen yet. */
	async poll(deliver = true): Promise<void> {
		if (this.reading) return;
		this.reading = true;
		try {
			const rows = await this.db.all<{
				idem_key: string;
				owner: string;
				fired_at: number;
				body: string;
			}>(
				`SELECT idem_key, owner, fired_at, body FROM alert_firings WHERE fired_at >= ?
				ORDER BY fired_at, idem_key`,
				[this.since - LOOKBACK_MS]
			);
			for (const row of rows) {
				const at = Number(row.fired_at);
				if (at > this.since) this.since = at;
				if (this.seen.has(row.idem_key)) continue;
				this.seen.set(row.idem_key, at);
				if (deliver) this.deliver(JSON.parse(row.body) as AlertFiring, row.owner);
			}
			for (const [key, at] of this.seen)
				if (at < this.since - 2 * LOOKBACK_MS) this.seen.delete(key);
		} catch (e) {
			this.log(`alerts: cannot read other replicas' firings: ${(e as Error).message}`);
		} finally {
			this.reading = false;
		}
	}

	close(): void {
		clearInterval(this.timer);
		this.timer = undefined;
	}
}
