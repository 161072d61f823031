/**
 * A past day's moment as JSON (momentResponse.ts) against the raw record it was read from,
 * decoded here with the wire decoder: the day's last overview step by default, an exact moment
 * with `at`, and clear errors for what is not there or not asked right.
 */
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeColumnarFrame, type ColumnarGex } from '../../wire';
import { spxChain } from '../../wire/arbitraries.test-support';
import { encodeFrame } from '../../wire/encode';
import { decodeMomentBody } from '../../relay/momentBody';
import { decodeOverviewBody } from '../../relay/overviewBody';
import { recorderRig } from '../recorder/sessionRecorder.test-support';
import { momentResponse } from './momentResponse';
import { overviewResponse } from './overviewResponse';

const OPEN = 1795446000; // 2026-11-23 09:30 ET
const DAY = '2026-11-23';
const STREAM = 'classic_gex_full';
const rig = recorderRig('gexdeck-moment-');

/** Records a chain a second from the open; the frames, by time, as the wire decoder reads them. */
function recordDay(seconds: number, open = OPEN): Map<number, ColumnarGex> {
	const chains = new Map<number, ColumnarGex>();
	for (let s = 0; s < seconds; s++) {
		const any = encodeFrame('gex', {
			...spxChain(30 + (s % 4), s),
			ticker: 'SPX',
			timestamp: open + s
		});
		rig.tap.publish({ source: 'stream', group: `SPX_${STREAM}`, receivedAt: 0, any });
		const f = decodeColumnarFrame(any);
		if (f.kind === 'gex') chains.set(open + s, f.value);
	}
	return chains;
}

const ask = (query: string, stream = STREAM) =>
	momentResponse(rig.recorder, 'SPX', stream, new URLSearchParams(query));

/** The answer's moment, as the page decodes it. */
async function momentOf(query: string) {
	const answer = await ask(query);
	expect(answer.status, String(answer.body)).toBe(200);
	expect(answer.headers['content-encoding']).toBe('gzip');
	return decodeMomentBody(gunzipSync(answer.body as Uint8Array).toString('utf8'));
}

const plain = (g: ColumnarGex) => ({
	...g,
	strikes: [...g.strikes],
	gexVol: [...g.gexVol],
	gexOi: [...g.gexOi],
	priors: [...g.priors],
	maxPriors: [...g.maxPriors]
});

describe('a moment of a recorded day', () => {
	it("is the day's last overview step by default, the record's chain exactly", async () => {
		const chains = recordDay(95);
		const lines = overviewResponse(
			rig.recorder,
			'SPX',
			STREAM,
			new URLSearchParams(`day=${DAY}&cells=none`)
		);
		const times = decodeOverviewBody(gunzipSync(lines.body as Uint8Array)).times;
		const last = times[times.length - 1];
		// The last step opens at 90 s, not the last record (94 s): what the timeline shows last.
		expect(last).toBe(OPEN + 90);
		const moment = await momentOf(`day=${DAY}`);
		expect(moment.at).toBe(last);
		expect(plain(moment.chain)).toEqual(plain(chains.get(last)!));
		const answer = await ask(`day=${DAY}`);
		expect(answer.headers).toMatchObject({
			'content-type': 'application/json',
			'cache-control': 'no-store',
			'x-gexdeck-day': DAY
		});
	});

	it("is the asked day's last step of several, the newest day's without a day", async () => {
		const first = recordDay(45);
		recordDay(15, OPEN + 86_400);
		const next = recordDay(25, OPEN + 2 * 86_400);
		const earlier = await momentOf(`day=${DAY}`);
		expect(earlier.at).toBe(OPEN + 40);
		expect(plain(earlier.chain)).toEqual(plain(first.get(OPEN + 40)!));
		const newest = await momentOf('');
		expect(newest.at).toBe(OPEN + 2 * 86_400 + 20);
		expect(plain(newest.chain)).toEqual(plain(next.get(OPEN + 2 * 86_400 + 20)!));
	});

	it('is the record at `at` when asked, one record of the day', async () => {
		const chains = recordDay(40);
		for (const s of [0, 7, 39]) {
			const moment = await momentOf(`day=${DAY}&at=${OPEN + s}`);
			expect(moment.at).toBe(OPEN + s);
			expect(plain(moment.chain)).toEqual(plain(chains.get(OPEN + s)!));
		}
	});

	it('says what is missing or malformed', async () => {
		const said = async (query: string, stream = STREAM, ticker = 'SPX') => {
			const a = await momentResponse(rig.recorder, ticker, stream, new URLSearchParams(query));
			expect(a.headers['content-type']).toBe('application/json');
			return [a.status, JSON.parse(String(a.body)).error as string] as const;
		};
		expect(await said('')).toEqual([404, 'Nothing recorded for SPX classic_gex_full yet.']);
		recordDay(5);
		expect(await said(`day=${DAY}&at=${OPEN + 100}`)).toEqual([
			404,
			`No chain of SPX classic_gex_full was recorded at ${OPEN + 100}.`
		]);
		expect(await said('day=2026-11-20')).toEqual([
			404,
			'SPX classic_gex_full was not recorded on 2026-11-20.'
		]);
		expect(await said(`day=2026-11-20&at=${OPEN}`)).toEqual([
			404,
			'SPX classic_gex_full was not recorded on 2026-11-20.'
		]);
		for (const at of ['soon', '', '%20']) {
			expect(await said(`day=${DAY}&at=${at}`)).toEqual([
				400,
				`at must be unix seconds, got ${decodeURIComponent(at)}`
			]);
		}
		expect(await said('day=23-11-2026')).toEqual([400, 'day must be YYYY-MM-DD, got 23-11-2026']);
		expect(await said(`day=23-11-2026&at=${OPEN}`)).toEqual([
			400,
			'day must be YYYY-MM-DD, got 23-11-2026'
		]);
		expect(await said(`day=${DAY}`, 'spot')).toEqual([400, 'spot has no moments (not chains)']);
		expect(await said(`day=${DAY}`, '../x')).toEqual([400, 'Not a stream name: ../x']);
		expect(await said(`day=${DAY}`, STREAM, 'NOPE!')).toEqual([400, 'Not a ticker: NOPE!']);
	});
});
