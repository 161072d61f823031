/**
 * Fresh ledger folders for the ledger suites (accountQuotaLedger.test.ts and its edges): each
 * removed after the test that asked for it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

const dirs: string[] = [];
afterEach(() => {
	for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A new empty folder under the temp folder, gone after this test. */
export function tempDir(): string {
	const d = mkdtempSync(join(tmpdir(), 'gexdeck-ledger-'));
	dirs.push(d);
	return d;
}
