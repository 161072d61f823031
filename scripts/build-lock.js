/**
 * One build of build/ at a time in a checkout. `npm start` in one terminal and `npm test` in
 * another both bring build/ up to date (scripts/start.js); two `vite build`s writing the same
 * folder at once left a build/ of mixed halves. The lock is a folder made atomically
 * (`.build.lock` at the checkout's root) with the holder's pid in it: a second build waits for it
 * (saying once whose it is), then checks again whether a build is still needed, since the first
 * one has usually just made it. A lock whose process is gone (killed mid-build) is taken over.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** @param {number} ms */
function sleep(ms) {
	Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** @param {number} pid */
function alive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (err) {
		// EPERM: it exists, owned by someone else.
		return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM';
	}
}

/**
 * Runs `fn` holding the checkout's build lock; returns what it returns.
 * @template T
 * @param {string} root the checkout
 * @param {() => T} fn
 * @param {{ pollMs?: number, say?: (line: string) => void }} [options]
 * @returns {T}
 */
export function withBuildLock(root, fn, { pollMs = 250, say = console.log } = {}) {
	const dir = join(root, '.build.lock');
	const pidFile = join(dir, 'pid');
	let told = false;
	for (;;) {
		try {
			mkdirSync(dir);
			writeFileSync(pidFile, String(process.pid));
			break;
		} catch (err) {
			if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') throw err;
		}
		let holder = NaN;
		try {
			holder = Number(readFileSync(pidFile, 'utf8'));
		} catch {
			// Made, its pid not yet written: the holder is between its two steps.
		}
		if (Number.isInteger(holder) && holder > 0 && !alive(holder)) {
			say(`gexdeck: taking over the build lock of process ${holder}, which is gone`);
			rmSync(dir, { recursive: true, force: true });
			continue;
		}
		if (!told && Number.isInteger(holder)) {
			say(`gexdeck: waiting for the build of process ${holder} to finish…`);
			told = true;
		}
		sleep(pollMs);
	}
	try {
		return fn();
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}
