import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { syntheticCboeFile } from '../../src/lib/analytics/cboeQuotes.test-support';

const dir = mkdtempSync(join(tmpdir(), 'gexdeck-analyze-'));
function analyze(...args: string[]) {
	const run = spawnSync(
		process.execPath,
		['--import', 'tsx', 'src/lib/analytics/cli.ts', ...args],
		{ encoding: 'utf8' }
	);
	return { code: run.status, out: run.stdout, err: run.stderr };
}
function file(name: string, text: string): string {
	const path = join(dir, name);
	writeFileSync(path, text);
	return path;
}

const contracts = [
	{ expiry_years: 0.0192, strike: 4950, right: 'C', iv: 0.2, open_interest: 1000, volume: 300 },
	{ expiry_years: 0.0192, strike: 4950, right: 'P', iv: 0.22, open_interest: 2000, volume: 500 },
	{ expiry_years: 0.0192, strike: 5050, right: 'C', iv: 0.18, open_interest: 1500, volume: 800 },
	{ expiry_years: 0.0192, strike: 5050, right: 'P', iv: 0.19, open_interest: 500, volume: 100 }
];

describe('npm run analyze', () => {
	it('prints one JSON report for a JSON chain, and the same for the CSV form', () => {
		const json = analyze(
			file('a.json', JSON.stringify({ spot: 5000, rate: 0.05, dividend_yield: 0.013, contracts }))
		);
		expect(json.code).toBe(0);
		const report = JSON.parse(json.out);
		expect(report.strikes.map((s: { strike: number }) => s.strike)).toEqual([4950, 5050]);
		// Hand-checked values (see exposures.test.ts): net GEX by OI at 4950.
		expect(report.strikes[0].gex_oi).toBeCloseTo(-55889597.497699544, 3);
		expect(Object.keys(report.total)).toContain('charm_oi');
		expect(report.majors).toEqual({ pos_oi: 5050, neg_oi: 4950, pos_vol: 5050, neg_vol: 4950 });
		expect(typeof report.zero_gamma.oi).toBe('number');
		const csvText =
			'expiry_years,strike,right,iv,open_interest,volume\n' +
			contracts
				.map((c) => [c.expiry_years, c.strike, c.right, c.iv, c.open_interest, c.volume].join(','))
				.join('\n');
		const csv = analyze(
			file('a.csv', csvText),
			'--spot',
			'5000',
			'--rate',
			'0.05',
			'--dividend-yield=0.013'
		);
		expect(csv.code).toBe(0);
		expect({ ...JSON.parse(csv.out), format: 'json' }).toEqual(report);
		expect(report.skipped.total).toBe(0);
		expect(report.conventions).toMatchObject({ rate: 0.05, dividend_yield: 0.013 });
	}, 60_000);

	it('exits 2 with a message naming the field or line, printing no report', () => {
		const cases: [string[], RegExp][] = [
			[
				[
					file(
						'neg.json',
						JSON.stringify({ spot: 5000, contracts: [{ ...contracts[0], open_interest: -3 }] })
					)
				],
				/contracts\[0\]\.open_interest/
			],
			[[file('spot.json', JSON.stringify({ spot: -1, contracts }))], /spot/],
			[[file('bad.json', '{"spot": 5000,\n"contracts": [\n{]}')], /line 3/],
			[
				[
					file('col.csv', 'expiry_years,strike,right,iv,open_interest,volume,foo\n'),
					'--spot',
					'5000'
				],
				/line 1.*foo/
			],
			[
				[
					file('k.csv', 'expiry_years,strike,right,iv,open_interest,volume\n0.1,0,C,0.2,1,1\n'),
					'--spot',
					'5000'
				],
				/line 2, strike/
			],
			[[join(dir, 'missing.json')], /cannot read/],
			[
				[file('cut.csv', syntheticCboeFile().split('\n').slice(0, 40).join('\n') + '\nFri')],
				/line 41: expected 22 fields/
			],
			[[file('q.csv', syntheticCboeFile()), '--convention', 'x'], /--convention must be/],
			[[file('b.json', JSON.stringify({ spot: 5000, contracts })), '--iv-from', 'mid'], /Cboe/],
			[[], /missing chain file/]
		];
		for (const [args, message] of cases) {
			const r = analyze(...args);
			expect(r.code).toBe(2);
			expect(r.out).toBe('');
			expect(r.err).toMatch(message);
		}
	}, 60_000);

	it('reads a Cboe quote-data file: conventions, skipped and the G(X) profile', () => {
		const path = file('quotedata.csv', syntheticCboeFile('2026-11-16', { eol: '\r\n' }));
		const r = analyze(path, '--profile');
		expect(r.code).toBe(0);
		const report = JSON.parse(r.out);
		expect(report.format).toBe('cboe');
		expect(report.underlying.symbol).toBe('SPX');
		expect(report.conventions).toMatchObject({
			preset: 'calendar',
			as_of: '2026-11-16T10:15:00-05:00',
			rate: 0,
			dividend_yield: 0
		});
		expect(report.skipped).toEqual({ total: 0, expired: 0, iv_zero: 0, unsolvable: 0 });
		expect(report.profile).toHaveLength(200);
		expect(report.profile[0].spot).toBeCloseTo(report.spot * 0.8, 6);
		expect(typeof report.zero_gamma.oi).toBe('number');
		const p = JSON.parse(analyze(path, '--convention', 'perfiliev', '--profile=7').out);
		expect(p.conventions.preset).toBe('perfiliev');
		expect(p.profile).toHaveLength(7);
		expect(p.total.gex_oi).not.toBe(report.total.gex_oi);
	}, 60_000);
});
