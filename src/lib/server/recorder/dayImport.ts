/**
 * One stream of one day being imported (a history download, an EOD report member), written as
 * it arrives into a folder of its own beside the recorded days and moved into place only when
 * complete: a download that fails or exceeds its cap leaves nothing behind, and no reader ever
 * sees part of a day as if it were the whole day. The temporary folder's name is not a day, so
 * the recorder's listings and retention never see it.
 */
import {
	chmodSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	renameSync,
	rmSync
} from 'node:fs';
import { dirname, join } from 'node:path';
import { indexPathOf, RecordFile, type RecordKind } from './recordFile';

/** Records held before they are written in one go (RecordFile.appendAll). */
const BATCH_BYTES = 1 << 20;

export class DayImport {
	private readonly file: RecordFile;
	private done = false;
	private batch: {
		kind: RecordKind;
		timestamp: number;
		receivedAt: number;
		payload: Uint8Array;
	}[] = [];
	private batchBytes = 0;

	constructor(
		private readonly tempDir: string,
		/** Where the `.rec` goes once complete. */
		readonly finalPath: string
	) {
		this.file = RecordFile.open(join(tempDir, 'import.rec'));
	}

	/** Opens an import under `root` (its temporary folder `.import-*`, 0700). */
	static begin(root: string, finalPath: string): DayImport {
		mkdirSync(root, { recursive: true, mode: 0o700 });
		return new DayImport(mkdtempSync(join(root, '.import-')), finalPath);
	}

	get records(): number {
		return this.file.records + this.batch.length;
	}

	append(kind: RecordKind, timestamp: number, payload: Uint8Array): void {
		if (this.done) throw new Error('the import is finished');
		this.batch.push({ kind, timestamp, receivedAt: Date.now(), payload });
		this.batchBytes += payload.length;
		if (this.batchBytes >= BATCH_BYTES) this.flush();
	}

	private flush(): void {
		if (this.batch.length === 0) return;
		this.file.appendAll(this.batch);
		this.batch = [];
		this.batchBytes = 0;
	}

	/**
	 * Moves the complete stream into place: true, or false when the stream was filed meanwhile
	 * by someone else (theirs is kept, this copy dropped).
	 */
	commit(): boolean {
		if (this.done) throw new Error('the import is finished');
		try {
			this.flush();
			this.done = true;
			this.file.close();
			if (existsSync(this.finalPath)) return false;
			mkdirSync(dirname(this.finalPath), { recursive: true, mode: 0o700 });
			// The index first: a stream exists for readers once its data file does (has()).
			renameSync(indexPathOf(this.file.path), indexPathOf(this.finalPath));
			renameSync(this.file.path, this.finalPath);
			return true;
		} finally {
			this.done = true;
			this.file.close();
			rmSync(this.tempDir, { recursive: true, force: true });
		}
	}

	/** Drops what was written (a failed or refused download). */
	abort(): void {
		if (this.done) return;
		this.done = true;
		this.file.close();
		rmSync(this.tempDir, { recursive: true, force: true });
	}
}

/**
 * The recordings folder, readable by this user only: created 0700, and one that already exists
 * (an older install, a Docker volume made 0755) is tightened, so files written before records
 * were made 0600 are out of others' reach too. Leftovers of an import cut by a crash go.
 */
export function preparePrivateRoot(root: string): void {
	mkdirSync(root, { recursive: true, mode: 0o700 });
	chmodSync(root, 0o700);
	for (const entry of readdirSync(root)) {
		if (entry.startsWith('.import-')) rmSync(join(root, entry), { recursive: true, force: true });
	}
}
