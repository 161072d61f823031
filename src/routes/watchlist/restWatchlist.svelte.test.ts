/**
 * The REST watchlist reads each ticker's majors through fetchRoute, the browser's one path to
 * /api (a stubbed fetch answers as the proxy does): a refusal reads with what it requires, and
 * a 429's Retry-After ends the round and holds the next one back past the 10 s cadence.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RestWatchlist, WATCHLIST_POLL_MS } from './restWatchlist.svelte';

const majors = (ticker: string) => ({
	zero_gamma: 7000,
	mpos_vol: 7050,
	mpos_oi: 7100,
	mneg_vol: 6950,
	mneg_oi: 6900,
	net_gex_vol: 1,
	net_gex_oi: 2,
	timestamp: 1_767_277_800,
	ticker,
	spot: 7010
});

/** Answers by ticker; every URL asked, in order. */
let answers: Record<string, () => Response>;
let asked: string[];

beforeEach(() => {
	vi.useFakeTimers();
	asked = [];
	vi.stubGlobal('document', {
		hidden: false,
		addEventListener: () => undefined,
		removeEventListener: () => undefined
	});
	vi.stubGlobal('fetch', async (url: string) => {
		asked.push(url);
		const ticker = url.split('/')[2];
		return (answers[ticker] ?? (() => Response.json(majors(ticker))))();
	});
});
afterEach(() => {
	vi.useRealTimers();
	vi.unstubAllGlobals();
});

/** Lets the round's fetches and parses settle. */
async function settle() {
	for (let i = 0; i < 20; i++) await Promise.resolve();
}

describe('RestWatchlist', () => {
	it('shows rows, and a refused ticker with what it requires', async () => {
		answers = {
			NVDA: () =>
				Response.json(
					{ error: 'Locked for this key.', reason: 'locked', requires: 'the Quant tier' },
					{ status: 403 }
				)
		};
		const list = new RestWatchlist(['SPX', 'NVDA']);
		const stop = list.start();
		await settle();
		expect(asked).toEqual([
			'/api/SPX/classic/gex_full/majors',
			'/api/NVDA/classic/gex_full/majors'
		]);
		expect(list.rows.get('SPX')).toMatchObject({ zeroGamma: 7000, majorPosVol: 7050 });
		expect(list.errors.get('NVDA')).toBe('Locked for this key. Requires: the Quant tier.');
		stop();
	});

	it('stops the round at a 429 and waits its Retry-After before the next', async () => {
		answers = {
			SPX: () =>
				Response.json(
					{ error: 'rate limited upstream', reason: 'backoff' },
					{ status: 429, headers: { 'retry-after': '30' } }
				)
		};
		const list = new RestWatchlist(['SPX', 'NDX']);
		const stop = list.start();
		await settle();
		// NDX would be refused too: not asked this round.
		expect(asked).toEqual(['/api/SPX/classic/gex_full/majors']);
		expect(list.errors.get('SPX')).toBe('rate limited upstream');
		answers = {};
		await vi.advanceTimersByTimeAsync(WATCHLIST_POLL_MS);
		expect(asked).toHaveLength(1);
		await vi.advanceTimersByTimeAsync(30_000 - WATCHLIST_POLL_MS);
		await settle();
		expect(asked.slice(1)).toEqual([
			'/api/SPX/classic/gex_full/majors',
			'/api/NDX/classic/gex_full/majors'
		]);
		expect(list.errors.has('SPX')).toBe(false);
		stop();
	});
});
