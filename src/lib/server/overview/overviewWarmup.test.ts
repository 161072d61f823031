/**
 * The start-up warm-up: the newest day's overview answers are made before anyone asks (a later
 * ask finds them made, nothing read again), SPX's first, bounded to WARM_STREAMS_MAX streams,
 * and an older day or a stream without an overview is left alone.
 */
import { describe, expect, it } from 'vitest';
import { spxChain, spxOrderflow } from '../../wire/arbitraries.test-support';
import { encodeFrame } from '../../wire/encode';
import { recorderRig } from '../recorder/sessionRecorder.test-support';
import { WARM_STREAMS_MAX, warmNewestOverviews, warmupPlan } from './overviewWarmup';

const OPEN = 1795446000; // 2026-11-23 09:30 ET
const rig = recorderRig('gexdeck-warmup-');

function record(ticker: string, stream: string, at: number): void {
	const any = stream.startsWith('orderflow')
		? encodeFrame('orderflow', spxOrderflow(at, 0))
		: encodeFrame('gex', { ...spxChain(20, at), timestamp: at });
	rig.tap.publish({ source: 'stream', group: `${ticker}_${stream}`, receivedAt: 0, any });
}

const CHAINS = ['classic_gex_full', 'classic_gex_zero', 'classic_gex_one'];

describe('overview warm-up at start', () => {
	it('makes the newest day’s answers, SPX first, so the routes find them made', async () => {
		for (let s = 0; s < 30; s++) {
			record('SPX', 'classic_gex_full', OPEN - 86_400 + s); // the day before: not warmed
			record('NDX', 'classic_gex_full', OPEN + s);
			record('SPX', 'classic_gex_full', OPEN + s);
			record('SPX', 'orderflow_orderflow', OPEN + s);
		}
		const plan = warmupPlan(rig.recorder);
		expect(plan.map((p) => `${p[0]} ${p[1]} ${p[2]}`)).toEqual([
			'SPX classic_gex_full day=2026-11-23&metric=vol',
			'SPX classic_gex_full day=2026-11-23&metric=vol&cells=none',
			'SPX classic_gex_full day=2026-11-23&metric=oi&cells=none',
			'SPX orderflow_orderflow day=2026-11-23',
			'NDX classic_gex_full day=2026-11-23&metric=vol',
			'NDX classic_gex_full day=2026-11-23&metric=vol&cells=none',
			'NDX classic_gex_full day=2026-11-23&metric=oi&cells=none'
		]);
		expect(await warmNewestOverviews(rig.recorder)).toBe(plan.length);
		const unmade = () => {
			throw new Error('made again');
		};
		for (const [ticker, stream, variant] of [
			['SPX', 'classic_gex_full', 'vol/all'],
			['SPX', 'classic_gex_full', 'oi/none'],
			['NDX', 'classic_gex_full', 'vol/none']
		]) {
			const kept = rig.recorder.overviews.made('2026-11-23', ticker, stream, variant, unmade);
			expect(kept, `${ticker} ${stream} ${variant}`).toBeDefined();
		}
		// The older day was not made: asking it makes it now.
		let made = 0;
		rig.recorder.overviews.made('2026-11-22', 'SPX', 'classic_gex_full', 'vol/all', () => made++);
		expect(made).toBe(1);
	});

	it(`warms at most ${WARM_STREAMS_MAX} streams, and stops when told`, async () => {
		for (const ticker of ['AAPL', 'NDX', 'SPX', 'QQQ'])
			for (const stream of CHAINS) for (let s = 0; s < 3; s++) record(ticker, stream, OPEN + s);
		const plan = warmupPlan(rig.recorder);
		const streams = new Set(plan.map((p) => `${p[0]} ${p[1]}`));
		expect(streams.size).toBe(WARM_STREAMS_MAX);
		expect([...streams].slice(0, 3)).toEqual(CHAINS.map((c) => `SPX ${c}`).sort());
		expect(await warmNewestOverviews(rig.recorder, () => true)).toBe(0);
	});

	it('has nothing to make with nothing recorded', async () => {
		expect(warmupPlan(rig.recorder)).toEqual([]);
		expect(await warmNewestOverviews(rig.recorder)).toBe(0);
	});
});
