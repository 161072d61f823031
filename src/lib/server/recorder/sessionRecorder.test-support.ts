/**
 * The rig both session-recorder suites run on (sessionRecorder.test.ts and
 * sessionRecorder.retention.test.ts): a recorder on an update tap over a fresh temporary folder
 * for each test, closed and removed after it, with the wire encoder ready.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach } from 'vitest';
import { initWireEncoder } from '../../wire/encode';
import { UpdateTap } from '../updates/tap';
import { SessionRecorder, type SessionRecorderOptions } from './sessionRecorder';

export interface RecorderRig {
	/** This test's temporary folder, the recorder's root unless reopen gave another. */
	readonly dir: string;
	readonly tap: UpdateTap;
	readonly recorder: SessionRecorder;
	/** Closes the recorder and attaches a new one with `options` (root: dir unless given). */
	reopen(options?: Partial<SessionRecorderOptions>): SessionRecorder;
}

/** Registers the hooks; the rig's fields are this test's from beforeEach on. */
export function recorderRig(prefix: string): RecorderRig {
	let dir = '';
	let tap = new UpdateTap();
	let recorder: SessionRecorder | undefined;
	const rig: RecorderRig = {
		get dir() {
			return dir;
		},
		get tap() {
			return tap;
		},
		get recorder() {
			return recorder!;
		},
		reopen(options = {}) {
			recorder?.close();
			recorder = new SessionRecorder({ root: dir, ...options });
			recorder.attach(tap);
			return recorder;
		}
	};
	beforeAll(() => initWireEncoder());
	beforeEach(() => {
		dir = mkdtempSync(join(tmpdir(), prefix));
		tap = new UpdateTap();
		recorder = undefined;
		rig.reopen();
	});
	afterEach(() => {
		recorder?.close();
		rmSync(dir, { recursive: true, force: true });
	});
	return rig;
}
