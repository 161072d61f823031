/**
 * The dashboard's state files over a real start: a corrupt settings or ledger file stops the
 * start with an error naming the file, a copy is kept and the file is not reset; the data
 * folder is created owner-only (0700) by the first write, its files 0600.
 */
import {
	existsSync,
	mkdirSync,
	rmSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	statSync,
	writeFileSync
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	rawRequest,
	runToExit,
	startDashboard,
	startStubUpstream,
	type StubUpstream
} from './dashboard-support';

let stub: StubUpstream;

beforeAll(async () => {
	stub = await startStubUpstream();
});

afterAll(async () => {
	await stub?.close();
});

describe('state files at start', () => {
	for (const file of ['settings.json', 'ledger.json']) {
		it(`a corrupt ${file} stops the start, naming the file, and keeps a copy`, async () => {
			const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-corrupt-'));
			const garbage = '{"version":1,"customKey":"gexbot_custom_';
			writeFileSync(join(dataDir, file), garbage);
			const run = await runToExit(['scripts/start.js'], {
				HOST: '127.0.0.1',
				PORT: '0',
				GEXDECK_DATA_DIR: dataDir,
				...stub.env
			});
			expect(run.code).toBe(1);
			expect(run.output).toContain(join(dataDir, file));
			expect(run.output).toMatch(/is corrupt/);
			expect(readFileSync(join(dataDir, file), 'utf8')).toBe(garbage);
			const copies = readdirSync(dataDir).filter((f) => f.startsWith(`${file}.corrupt-`));
			expect(copies).toHaveLength(1);
			expect(readFileSync(join(dataDir, copies[0]), 'utf8')).toBe(garbage);
		});
	}

	it('creates the data folder 0700 with the first write, files 0600', async () => {
		const parent = mkdtempSync(join(tmpdir(), 'gexdeck-mode-'));
		const dataDir = join(parent, 'state', 'dashboard');
		const d = await startDashboard({
			GEXDECK_DATA_DIR: dataDir,
			...stub.env
		});
		try {
			// A quota-pool route is counted in the ledger, written shortly after.
			await rawRequest(d.port, 'GET', '/api/SPX/classic/gex_full');
			const ledger = join(dataDir, 'ledger.json');
			for (let i = 0; i < 50 && !existsSync(ledger); i++) {
				await new Promise((r) => setTimeout(r, 100));
			}
			expect(statSync(dataDir).mode & 0o777).toBe(0o700);
			expect(statSync(join(parent, 'state')).mode & 0o777).toBe(0o700);
			expect(statSync(ledger).mode & 0o777).toBe(0o600);
		} finally {
			await d.stop();
		}
	});

	it('a ledger that cannot be saved keeps the process up and says so on the Account page', async () => {
		const dataDir = mkdtempSync(join(tmpdir(), 'gexdeck-ledger-fail-'));
		const d = await startDashboard({
			GEXDECK_DATA_DIR: dataDir,
			...stub.env
		});
		const ledger = join(dataDir, 'ledger.json');
		const waitFor = async (check: () => boolean | Promise<boolean>) => {
			for (let i = 0; i < 50 && !(await check()); i++) await new Promise((r) => setTimeout(r, 100));
		};
		const accountPage = async () => (await rawRequest(d.port, 'GET', '/account')).body;
		try {
			await rawRequest(d.port, 'GET', '/api/SPX/classic/gex_full');
			await waitFor(() => existsSync(ledger));
			// The rename onto the ledger now fails (a non-empty folder is in its place), as on a
			// read-only or full disk.
			rmSync(ledger);
			mkdirSync(join(ledger, 'blocker'), { recursive: true });
			await rawRequest(d.port, 'GET', '/api/SPX/classic/gex_zero');
			await waitFor(async () => (await accountPage()).includes('ledger-write-error'));
			const page = await accountPage();
			expect(page).toContain('the ledger file is not being saved');
			expect(page).toContain('ledger.json could not be saved');
			expect(d.proc.exitCode).toBeNull();
			expect((await rawRequest(d.port, 'GET', '/api/tickers')).status).toBe(200);
			// Once the disk works again the counts are written and the notice goes.
			rmSync(ledger, { recursive: true });
			await rawRequest(d.port, 'GET', '/api/SPX/classic/gex_one');
			await waitFor(() => existsSync(ledger));
			const saved = JSON.parse(readFileSync(ledger, 'utf8'));
			const counts = Object.values(
				saved.accounts as Record<string, Record<string, { daily: { requests: number } }>>
			)[0];
			expect(counts.api_default.daily.requests).toBe(3);
			expect(await accountPage()).not.toContain('ledger-write-error');
		} finally {
			await d.stop();
		}
	});
});
