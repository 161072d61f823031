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
function recordDay(seconds: number): Map<number, ColumnarGex> {
	const chains = new Map<number, ColumnarGex>();
	for (let s = 0; s < seconds; s++) {
		const any = encodeFrame('gex', {
			...spxChain(30 + (s % 4), s),
			ticker: 'SPX',
			timestamp: OPEN + s
		});
		rig.tap.publish({ source: 'stream', group: `SPX_${STREAM}`, receivedAt: 0, any });
		const f = decodeColumnarFrame(any);
		if (f.kind === 'gex') chains.set(OPEN + s, f.value);
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
		recordDay(5);
		expect((await ask(`day=${DAY}&at=${OPEN + 100}`)).status).toBe(404);
		expect((await ask(`day=2026-11-20`)).status).toBe(404);
		expect((await ask(`day=2026-11-20&at=${OPEN}`)).status).toBe(404);
		expect((await ask(`day=${DAY}&at=soon`)).status).toBe(400);
		expect((await ask(`day=${DAY}&at=`)).status).toBe(400);
		expect((await ask(`day=23-11-2026`)).status).toBe(400);
		expect((await ask(`day=${DAY}`, 'spot')).status).toBe(400);
		expect(
			(await momentResponse(rig.recorder, 'NOPE!', STREAM, new URLSearchParams())).status
		).toBe(400);
		const missing = await ask(`day=${DAY}&at=${OPEN + 100}`);
		expect(JSON.parse(String(missing.body)).error).toMatch(/No chain of SPX classic_gex_full/);
	});
});
