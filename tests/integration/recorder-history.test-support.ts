/**
 * Shared setup of the recorder-history integration tests: the embedded service started on a
 * Friday morning (the days before are complete sessions in its history window), a temporary
 * directory, and the dashboard's history-import dependencies (REST proxy with its own ledger,
 * a SessionRecorder) pointed at that service with the quant key, wired as the server does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { QuotaLedger } from '../../src/lib/server/quotaLedger';
import { UpstreamProxy } from '../../src/lib/server/proxy';
import type { HistoryImportDeps } from '../../src/lib/server/recorder/historyImport';
import { SessionRecorder } from '../../src/lib/server/recorder/sessionRecorder';
import { keysOf, startTestService, type TestService } from './service-support';

/** Friday 20 Nov 2026, 10:30 ET. */
export const HISTORY_START = '2026-11-20T15:30:00Z';

export const keys = keysOf();

export interface HistoryFixture {
	/** The running service (set by the suite's beforeAll). */
	readonly t: TestService;
	/** Import deps over a fresh ledger and recorder in the temp directory (close the recorder). */
	deps(): HistoryImportDeps & { recorder: SessionRecorder };
}

/**
 * Registers the suite's beforeAll/afterAll: the service (with `historyWaitMs` if given), each
 * of its HTTP requests shown to `onRequest` first, and a temp directory named after `name`.
 */
export function useHistoryService(
	name: string,
	onRequest: (req: IncomingMessage, res: ServerResponse) => void,
	historyWaitMs?: number
): HistoryFixture {
	let t: TestService | undefined;
	let dir: string | undefined;

	beforeAll(async () => {
		t = await startTestService({ start: HISTORY_START, historyWaitMs });
		t.service.server.on('request', onRequest);
		dir = mkdtempSync(join(tmpdir(), `gexdeck-${name}-`));
	}, 120_000);

	afterAll(async () => {
		await t?.close();
		if (dir) rmSync(dir, { recursive: true, force: true });
	});

	return {
		get t() {
			if (!t) throw new Error('the history service is not started yet');
			return t;
		},
		deps() {
			const service = this.t.service;
			const root = dir as string;
			const proxy = new UpstreamProxy({
				target: async () => ({
					baseUrl: service.url,
					rootUrl: service.rootUrl,
					kind: 'configured',
					customKey: keys.quant,
					researchKey: undefined,
					customKeySource: 'environment',
					researchKeySource: 'none',
					demoAccounts: [],
					demoAccountId: undefined
				}),
				ledger: new QuotaLedger(),
				userAgent: 'gexdeck/test'
			});
			const recorder = new SessionRecorder({ root: join(root, 'recordings') });
			return { recorder, proxy, userAgent: 'gexdeck/test' };
		}
	};
}
