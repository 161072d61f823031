import { describe, expect, it } from 'vitest';
import {
	analyzeChainFile,
	DEFAULT_CONVENTIONS,
	excludingExpiry,
	gexProfile,
	parseCboeQuotes,
	priceCboe
} from '../analytics';
import { syntheticCboeFile } from '../analytics/cboeQuotes.test-support';
import { csvField, readCsvRecords } from '../analytics/parseCsv';
import { PROFILE_POINTS } from './analysis';
import { ChainWorkerCore } from './chainWorkerCore';

const text = syntheticCboeFile('2026-11-16');

describe('the chain worker', () => {
	it('analyses a Cboe file as the CLI does, with the three G(X) curves, smiles and surface', () => {
		const core = new ChainWorkerCore();
		const answer = core.handle({ type: 'load', id: 1, text, conventions: DEFAULT_CONVENTIONS });
		if (answer.type !== 'model') throw new Error(answer.message);
		const m = answer.model;
		const cli = analyzeChainFile(text);
		expect(m.zeroGamma.oi).toBe(cli.zero_gamma.oi);
		expect(m.totals.gex.oi.net).toBe(cli.total.gex_oi);
		expect(m.majors.posOi).toBe(cli.majors.pos_oi);
		expect(m.symbol).toBe('SPX');
		expect(m.profile.spots).toHaveLength(PROFILE_POINTS);
		// The synthetic chain's first expiry is the as-of day; its monthly is Friday Nov 20.
		expect(m.profile.curves.map((c) => [c.id, c.excluded])).toEqual([
			['all', null],
			['exNext', '2026-11-16'],
			['exMonthly', '2026-11-20']
		]);
		expect(m.smile).toHaveLength(25);
		expect(m.surface.expiries).toHaveLength(25);
		expect(m.surface.iv.length).toBe(25 * m.surface.strikes.length);
		expect(m.surface.strikes[0]).toBeGreaterThanOrEqual(m.spot * 0.8);
		// A curve without an expiry (whole minus that expiry) equals the profile computed directly
		// on the remaining contracts.
		const priced = priceCboe(parseCboeQuotes(text));
		for (const c of m.profile.curves.slice(1)) {
			const direct = gexProfile(priced.chain, {
				selection: excludingExpiry(priced, c.excluded),
				points: PROFILE_POINTS
			});
			const scale = Math.max(...direct.oi.map(Math.abs));
			for (let j = 0; j < PROFILE_POINTS; j++) {
				expect(Math.abs(c.oi[j] - direct.oi[j]) / scale).toBeLessThan(1e-9);
				expect(direct.spots[j]).toBe(m.profile.spots[j]);
			}
		}
	});

	it('re-analyses the kept chain when the conventions change, and reports bad files by line', () => {
		const core = new ChainWorkerCore();
		const a = core.handle({ type: 'load', id: 1, text, conventions: DEFAULT_CONVENTIONS });
		const b = core.handle({
			type: 'analyze',
			id: 2,
			conventions: { ...DEFAULT_CONVENTIONS, preset: 'perfiliev' }
		});
		if (a.type !== 'model' || b.type !== 'model') throw new Error('expected models');
		expect(b.parseMs).toBe(0);
		expect(b.model.conventions.preset).toBe('perfiliev');
		expect(b.model.zeroGamma.oi).not.toBe(a.model.zeroGamma.oi);
		const bad = text.split('\n');
		const cells = readCsvRecords(bad[9])[0].cells;
		cells[4] = 'abc'; // the call's bid
		bad[9] = cells.map(csvField).join(',');
		const c = core.handle({
			type: 'load',
			id: 3,
			text: bad.join('\n'),
			conventions: DEFAULT_CONVENTIONS
		});
		expect(c).toMatchObject({ type: 'error', id: 3, line: 10 });
		// The failed load replaced nothing: the chain loaded before is still the one analysed.
		const d = core.handle({ type: 'analyze', id: 4, conventions: DEFAULT_CONVENTIONS });
		if (d.type !== 'model' || a.type !== 'model') throw new Error('expected a model');
		expect(d.model.zeroGamma).toEqual(a.model.zeroGamma);
		const empty = new ChainWorkerCore();
		expect(
			empty.handle({ type: 'analyze', id: 1, conventions: DEFAULT_CONVENTIONS })
		).toMatchObject({ type: 'error', message: 'no chain loaded' });
	});

	it("analyses a JSON chain under the file's own conventions, grouped by days to expiry", () => {
		const contracts = [0.02, 0.1].flatMap((t) =>
			[4900, 5000, 5100].flatMap((strike) =>
				['C', 'P'].map((right) => ({
					expiry_years: t,
					strike,
					right,
					iv: 0.2,
					open_interest: right === 'C' ? 1000 : 1500,
					volume: 10
				}))
			)
		);
		const json = JSON.stringify({ spot: 5000, rate: 0.04, dividend_yield: 0.01, contracts });
		const answer = new ChainWorkerCore().handle({
			type: 'load',
			id: 1,
			text: json,
			// Ignored for a JSON chain: its conventions are its own.
			conventions: { preset: 'perfiliev', rate: 0.5, dividendYield: 0, ivFrom: 'mid' }
		});
		if (answer.type !== 'model') throw new Error(answer.message);
		const m = answer.model;
		expect(m.format).toBe('json');
		expect(m.adjustable).toBe(false);
		expect(m.conventions).toMatchObject({ rate: 0.04, dividend_yield: 0.01, as_of: null });
		expect(m.totals.gex.oi.net).toBe(analyzeChainFile(json).total.gex_oi);
		expect(m.profile.curves.map((c) => [c.id, c.excluded])).toEqual([
			['all', null],
			['exNext', '7.3d']
		]);
		expect(m.smile.map((s) => s.expiry)).toEqual(['7.3d', '36.5d']);
	});
});
