import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { documentedChain } from '../contract/fixtures.test-support';
import type { ClassicChain } from '../contract/schemas';
import { buildLevels, etText, roundToTick, type LevelsDocument } from './document';
import { bookmapCsv, BOOKMAP_COLUMNS, levelsCsv, thinkScript } from './formats';
import { formatPaste, parsePaste, pastePairs, tradingViewString } from './pasteString';

const base = { category: 'gex_full', source: 'poll' as const, staleAfterSeconds: 10 };

function docOf(chain: ClassicChain, extra: Partial<Parameters<typeof buildLevels>[0]> = {}) {
	const receivedAt = chain.timestamp * 1000;
	return buildLevels({ chain, receivedAt, now: receivedAt + 1500, ...base, ...extra });
}

describe('buildLevels', () => {
	it('carries every level, with a reason for each null one', () => {
		const chain = { ...documentedChain(), zero_gamma: 0 };
		const doc = docOf(chain);
		expect(doc.as_of).toEqual({ unix_ms: 1767277800000, et: '2026-01-01 09:30:00 ET' });
		expect(doc.age_seconds).toBe(1.5);
		expect(doc.stale).toBe(false);
		expect(doc.levels.map((l) => [l.id, l.price])).toEqual([
			['zero_gamma_vol', null],
			['zero_gamma_oi', null],
			['major_pos_vol', 7135],
			['major_pos_oi', 7200],
			['major_neg_vol', 7100],
			['major_neg_oi', 6900]
		]);
		for (const l of doc.levels) expect(l.price === null).toBe(l.reason !== null);
		expect(doc.levels[0].reason).toMatch(/no sign change/);
	});

	it('is stale past the threshold or while the feed fails', () => {
		const chain = documentedChain();
		expect(docOf(chain, { now: chain.timestamp * 1000 + 10_500 }).stale).toBe(true);
		expect(docOf(chain, { notUpdating: 'market closed' })).toMatchObject({
			stale: true,
			stale_reason: 'market closed'
		});
	});

	it('judged against the session: a replay or the last session is stale, with the badge words', () => {
		// Wed Nov 25 2026 11:46 ET, read on Fri Nov 27 at 08:00 ET (before the open).
		const chain = { ...documentedChain(), timestamp: Date.UTC(2026, 10, 25, 16, 46) / 1000 };
		const friday = Date.UTC(2026, 10, 27, 13, 0);
		const at = { receivedAt: friday - 1000, now: friday };
		expect(docOf(chain, { ...at, session: { simulated: true } })).toMatchObject({
			stale: true,
			stale_reason: 'Replay of Wed Nov 25 (simulated market)'
		});
		expect(docOf(chain, { ...at, session: { simulated: false } })).toMatchObject({
			stale: true,
			stale_reason: 'Market closed: last session (Wed Nov 25)'
		});
		// In the session, fresh data of today is live.
		const live = { ...chain, timestamp: Date.UTC(2026, 10, 25, 16, 46) / 1000 };
		const now = Date.UTC(2026, 10, 25, 16, 46, 2);
		expect(docOf(live, { receivedAt: now, now, session: { simulated: true } })).toMatchObject({
			stale: false,
			stale_reason: null
		});
	});

	it('converts every price to the future and lands on its tick', () => {
		const doc = docOf(documentedChain(), {
			future: {
				root: 'ES',
				conversion: { future_contract: 'ESZ6', multiplier: 1, additive: 39.62 },
				fetchedAt: 1767277800000 - 60_000
			},
			strikes: 1
		});
		expect(doc.price_of).toBe('ESZ6');
		expect(doc.spot).toBe(7178.25);
		expect(doc.levels[2].price).toBe(7174.5);
		expect(doc.strikes).toEqual([{ strike: 6929.5, net_gex_vol: -228.01, net_gex_oi: -86.9 }]);
		expect(doc.future).toMatchObject({ contract: 'ESZ6', tick: 0.25, age_seconds: 62 });
		for (const l of doc.levels) if (l.price !== null) expect((l.price * 4) % 1).toBe(0);
		expect(roundToTick(7090.123, 0.01)).toBe(7090.12);
	});

	it('writes New York time across DST', () => {
		expect(etText(Date.UTC(2026, 6, 1, 14, 0, 0))).toBe('2026-07-01 10:00:00 ET');
	});
});

describe('formats', () => {
	const doc = docOf(documentedChain(), { strikes: 1 });

	it('TradingView: merged labels at one price, highest first', () => {
		expect(tradingViewString(doc)).toBe(
			'ES_SPX: Major + OI & Max Chg 30m, 7200, Max Chg 10m, 7150, Max Chg 1m, 7140, ' +
				'Major + vol & Max Chg current, 7135, Zero Gamma, 7112.95, Major - vol & Max Chg 5m, 7100, ' +
				'Max Chg 15m, 7000, Major - OI, 6900'
		);
	});

	it('CSV: dot decimals, a reason for the null level, strike rows', () => {
		const csv = levelsCsv(doc).split('\r\n');
		expect(csv[0]).toBe('id,label,kind,price,value,value_oi,reason');
		expect(csv).toContain('zero_gamma_vol,Zero Gamma,zero,7112.95,,,');
		expect(csv).toContain(
			'zero_gamma_oi,Zero Gamma OI,zero,,,,the upstream publishes zero gamma by volume only'
		);
		expect(csv).toContain('strike,,strike,6890,-228.01,-86.9,');
		expect(csv).toContain('stale,,meta,,0,,');
	});

	it('Bookmap: the Cloud Notes columns', () => {
		const rows = bookmapCsv(doc, 'ESZ6.CME@RITHMIC').trim().split('\r\n');
		expect(rows[0]).toBe(BOOKMAP_COLUMNS.join(','));
		expect(rows[1]).toBe('ESZ6.CME@RITHMIC,7112.95,Zero Gamma,#ffffff,#b48cff,10,left,TRUE');
	});

	it('thinkScript: the levels and their time written in; NaN with the reason when null', () => {
		const text = thinkScript(docOf({ ...documentedChain(), zero_gamma: 0 }));
		expect(text).toContain('plot MajorPosVol = 7135;');
		expect(text).toContain('plot ZeroGammaVol = Double.NaN;');
		expect(text).toContain('2026-01-01 09:30:00 ET');
		expect(text).not.toMatch(/\d,\d/);
	});
});

const price = fc
	.double({ min: 0.01, max: 100_000, noNaN: true })
	.map((v) => Math.round(v * 100) / 100);
const chainArb: fc.Arbitrary<ClassicChain> = fc
	.record({
		ticker: fc.constantFrom('SPX', 'ES_SPX', 'NDX', 'QQQ', 'SPY', 'RUT', 'VIX'),
		spot: price,
		zero_gamma: fc.oneof(fc.constant(0), price),
		major_pos_vol: fc.oneof(fc.constant(0), price),
		major_pos_oi: fc.oneof(fc.constant(0), price),
		major_neg_vol: fc.oneof(fc.constant(0), price),
		major_neg_oi: fc.oneof(fc.constant(0), price),
		max_priors: fc.array(
			fc.tuple(fc.oneof(fc.constant(0), price), fc.double({ noNaN: true, min: -1e6, max: 1e6 })),
			{
				maxLength: 6
			}
		)
	})
	.map((x) => ({ ...documentedChain(), ...x }) as ClassicChain);

describe('the paste grammar (reference parser)', () => {
	it('round-trips every string the dashboard produces', () => {
		fc.assert(
			fc.property(
				chainArb,
				fc.option(fc.double({ min: -100, max: 100, noNaN: true })),
				(chain, additive) => {
					const doc: LevelsDocument = docOf(chain, {
						future:
							additive === null
								? undefined
								: {
										root: 'ES',
										conversion: { future_contract: 'ESH7', multiplier: 1, additive },
										fetchedAt: 0
									}
					});
					const text = tradingViewString(doc);
					const parsed = parsePaste(text);
					expect(parsed).toEqual({
						ok: true,
						value: { symbol: doc.price_of.replace(/[^A-Za-z0-9_.!]/g, ''), pairs: pastePairs(doc) }
					});
					if (parsed.ok) expect(formatPaste(parsed.value)).toBe(text);
				}
			),
			{ numRuns: 500 }
		);
	});

	it('refuses what the grammar does not allow, saying where', () => {
		expect(parsePaste('SPX Zero, 1')).toMatchObject({ ok: false });
		expect(parsePaste('SPX: Zero, 7567,8')).toMatchObject({ ok: false, error: /without a price/ });
		expect(parsePaste('SPX: Zero, 7e3')).toMatchObject({ ok: false, error: /bad price/ });
		expect(parsePaste('SPX: Zero &  , 7')).toMatchObject({ ok: false, error: /bad label/ });
		expect(parsePaste('SPX:')).toEqual({ ok: true, value: { symbol: 'SPX', pairs: [] } });
	});
});
