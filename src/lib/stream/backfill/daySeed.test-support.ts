/**
 * A recorded day as the /history routes answer it (gzip-encoded, as they always are), for the
 * tests of a page's seed: both metrics' lines and the chain at the last step.
 */
import { gzipSync } from 'node:zlib';
import { encodeMomentBody } from '../../relay/momentBody';
import { encodeOverviewBody } from '../../relay/overviewBody';
import { spxChain } from '../../wire/arbitraries.test-support';
import { columnarGex, type ColumnarGex } from '../../wire/columnar';
import { daySeedUrls } from './daySeed';

export const SEED_DAY = '2026-11-23';
export const SEED_OPEN = 1795444200; // 09:30 ET
export const SEED_STEPS = 12;
export const seedLast = SEED_OPEN + (SEED_STEPS - 1) * 10;

export const seedChainAt = (ts: number): ColumnarGex =>
	columnarGex({ ...spxChain(20, ts - SEED_OPEN + 1), ticker: 'SPX', timestamp: ts });

/**
 * The answers by address: the moment is asked at `step` (the last step without one: no `at`),
 * and answered as the chain at `momentAt` (another moment than asked: a wrong answer).
 */
export function seedAnswers({
	step,
	momentAt = step ?? seedLast
}: { step?: number; momentAt?: number } = {}): Map<string, () => Response> {
	const chains = Array.from({ length: SEED_STEPS }, (_, i) => seedChainAt(SEED_OPEN + i * 10));
	const lines = (metric: 'vol' | 'oi') =>
		encodeOverviewBody(
			{ ticker: 'SPX', stream: 'classic_gex_full', day: SEED_DAY, metric, step: 10 },
			chains.map((c) => ({
				...c,
				majorPos: metric === 'vol' ? c.majorPosVol : c.majorPosOi,
				majorNeg: metric === 'vol' ? c.majorNegVol : c.majorNegOi,
				values: metric === 'vol' ? c.gexVol : c.gexOi
			}))
		);
	const gzip = (body: Uint8Array | string, type: string) => () =>
		new Response(gzipSync(body), {
			headers: {
				'content-type': type,
				'content-encoding': 'gzip',
				'x-gexdeck-day': SEED_DAY,
				'x-gexdeck-last': String(seedLast)
			}
		});
	const [vol, oi, moment] = daySeedUrls('SPX', 'classic_gex_full', SEED_DAY, step);
	return new Map([
		[vol, gzip(lines('vol'), 'application/octet-stream')],
		[oi, gzip(lines('oi'), 'application/octet-stream')],
		[
			moment,
			gzip(encodeMomentBody({ at: momentAt, chain: seedChainAt(momentAt) }), 'application/json')
		]
	]);
}

/** A fetch answering `answers` (404 elsewhere), counting what it was asked. */
export function seedFetch(answers: Map<string, () => Response>): {
	fetch: typeof globalThis.fetch;
	asked: string[];
} {
	const asked: string[] = [];
	const fetch = (async (input: RequestInfo | URL) => {
		const url = String(input);
		asked.push(url);
		return answers.get(url)?.() ?? new Response('{"error":"not recorded"}', { status: 404 });
	}) as typeof globalThis.fetch;
	return { fetch, asked };
}
