/**
 * A job that runs once per cluster (issue 30 item 4): on the replica that holds the upstream
 * slot's lease, started when it takes the lease and stopped when it loses it, so the recorder
 * writes each frame once and the alert rules are evaluated once, whatever the replica count.
 * Without a cluster (one process) the job simply runs.
 *
 * Why the slot holder rather than a partition: the holder is the one replica that receives
 * every upstream frame first-hand (the others read them back from Redis), its lease already
 * has a fencing token and a failover within seconds, and a job that follows it needs no
 * second election to get wrong.
 */
import { log } from '../log';

/** Who holds the lease, and news of it changing (RelayCluster). */
export interface HoldSignal {
	readonly holding: boolean;
	onHoldChange(listener: (holding: boolean) => void): () => void;
}

export interface Job {
	start(): void;
	stop(): void;
}

export class SingletonJob {
	private runningValue = false;
	private readonly off: (() => void) | undefined;
	/** In cluster mode (a lease to follow): only then is a start or stop worth a log line. */
	private readonly clustered: boolean;

	constructor(
		readonly name: string,
		private readonly job: Job,
		signal: HoldSignal | undefined
	) {
		this.clustered = signal !== undefined;
		if (!signal) {
			this.set(true);
			return;
		}
		this.off = signal.onHoldChange((holding) => this.set(holding));
		this.set(signal.holding);
	}

	/** Whether the job runs on this replica now. */
	get running(): boolean {
		return this.runningValue;
	}

	/** Stops the job for good (shutdown). */
	close(): void {
		this.off?.();
		this.set(false);
	}

	private set(on: boolean): void {
		if (on === this.runningValue) return;
		this.runningValue = on;
		try {
			if (on) this.job.start();
			else this.job.stop();
			if (this.clustered)
				log.info(
					`cluster: ${this.name} ${on ? 'runs on this replica' : 'stopped on this replica'}`
				);
		} catch (err) {
			log.warn(
				`cluster: ${this.name} failed to ${on ? 'start' : 'stop'}: ${(err as Error).message}`
			);
		}
	}
}
