/**
 * The analysis of a Cboe file against an independent brute force: time to expiry, gamma and
 * G(X) written out here from the rows the file was written from (not from the parser), zero
 * gamma found by a dense scan and bisection, under both conventions.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChainParseError } from './parse';
import { analyzeChainFile } from './chainFile';
import { writeCboeFile, type QuoteRow } from './cboeQuotes.test-support';
import { mulberry32 } from './syntheticChain';

const SPOT = 5000;
const AS_OF = Date.parse('2027-03-10T11:30:00-05:00');
// One expired (Mar 9), the 0DTE, a Friday, the monthly, two after the DST switch of Mar 14.
const EXPIRIES = [
	'2027-03-09',
	'2027-03-10',
	'2027-03-12',
	'2027-03-19',
	'2027-04-16',
	'2027-06-18'
];

function rows(): QuoteRow[] {
	const rand = mulberry32(7);
	const out: QuoteRow[] = [];
	for (const expiry of EXPIRIES)
		for (let k = 4500; k <= 5500; k += 25) {
			const x = Math.log(k / SPOT);
			const iv = Math.round((0.14 - 0.4 * x + 2 * x * x) * 1e4) / 1e4;
			const side = (call: boolean) => ({
				// Every 13th contract has no IV, as Cboe's deep wings often do.
				iv: rand() < 1 / 13 ? 0 : iv + (call ? 0 : 0.004),
				bid: 1,
				ask: 1.2,
				volume: Math.round(rand() * 3000),
				openInterest: Math.round(rand() * 20000 * Math.exp(-x * x * 80))
			});
			out.push({ expiry, strike: k, call: side(true), put: side(false) });
		}
	return out;
}

/** Years to expiry, written independently of src (explicit offsets; DST from 2027-03-14). */
function years(expiry: string, preset: 'calendar' | 'perfiliev'): number {
	if (preset === 'calendar') {
		const offset = expiry >= '2027-03-14' ? '-04:00' : '-05:00';
		return (Date.parse(`${expiry}T16:00:00${offset}`) - AS_OF) / (365 * 86400e3);
	}
	let days = 0;
	for (
		let d = Date.parse('2027-03-10T00:00:00Z');
		d < Date.parse(`${expiry}T00:00:00Z`);
		d += 86400e3
	) {
		const wd = new Date(d).getUTCDay();
		if (wd !== 0 && wd !== 6) days++;
	}
	if (expiry < '2027-03-10') return -1;
	return (days === 0 ? 1 : days) / 262;
}

interface Contract {
	k: number;
	t: number;
	iv: number;
	s: number;
	oi: number;
}

function contracts(preset: 'calendar' | 'perfiliev'): { list: Contract[]; skipped: number } {
	const list: Contract[] = [];
	let skipped = 0;
	for (const r of rows())
		for (const [side, s] of [
			[r.call, 1],
			[r.put, -1]
		] as const) {
			const t = years(r.expiry, preset);
			if (!(t > 0) || side.iv === 0) skipped++;
			else list.push({ k: r.strike, t, iv: side.iv, s, oi: side.openInterest });
		}
	return { list, skipped };
}

/** G(X) by OI in $ per 1% move, r = q = 0. */
function bruteG(list: Contract[], x: number): number {
	let g = 0;
	for (const c of list) {
		const sd = c.iv * Math.sqrt(c.t);
		const d1 = (Math.log(x / c.k) + 0.5 * sd * sd) / sd;
		const gamma = Math.exp(-0.5 * d1 * d1) / Math.sqrt(2 * Math.PI) / (x * sd);
		g += c.s * gamma * c.oi * 100 * x * x * 0.01;
	}
	return g;
}

function bruteZeroGamma(list: Contract[]): number | null {
	const n = 40_000;
	const lo = 0.8 * SPOT;
	const hi = 1.2 * SPOT;
	let best: number | null = null;
	let prevX = lo;
	let prevG = bruteG(list, lo);
	for (let j = 1; j <= n; j++) {
		const x = lo + ((hi - lo) * j) / n;
		const g = bruteG(list, x);
		if (prevG !== 0 && g !== 0 && prevG > 0 !== g > 0) {
			let a = prevX;
			let b = x;
			let ga = prevG;
			for (let it = 0; it < 200 && b - a > 1e-10; it++) {
				const m = 0.5 * (a + b);
				const gm = bruteG(list, m);
				if (gm > 0 === ga > 0) {
					a = m;
					ga = gm;
				} else b = m;
			}
			const root = 0.5 * (a + b);
			if (best === null || Math.abs(root - SPOT) < Math.abs(best - SPOT)) best = root;
		}
		prevX = x;
		prevG = g;
	}
	return best;
}

describe('Cboe file analysis equals a brute-force computation', () => {
	const text = writeCboeFile({
		spot: SPOT,
		date: '2027-03-10',
		time: '11:30 AM',
		zone: 'EST',
		rows: rows(),
		eol: '\r\n'
	});
	for (const preset of ['calendar', 'perfiliev'] as const)
		it(`under the ${preset} convention`, () => {
			const report = analyzeChainFile(text, { convention: preset, profilePoints: 41 });
			const { list, skipped } = contracts(preset);
			expect(report.conventions.preset).toBe(preset);
			expect(report.skipped.total).toBe(skipped);
			expect(report.skipped.expired).toBe(2 * 41);
			const total = bruteG(list, SPOT);
			expect(Math.abs(report.total.gex_oi - total) / Math.abs(total)).toBeLessThan(1e-9);
			const zero = bruteZeroGamma(list);
			expect(zero).not.toBeNull();
			expect(report.zero_gamma.oi).not.toBeNull();
			expect(Math.abs((report.zero_gamma.oi as number) - (zero as number))).toBeLessThan(1e-6);
			const scale = Math.max(...report.profile!.map((p) => Math.abs(p.oi)));
			for (const p of report.profile!)
				expect(Math.abs(p.oi - bruteG(list, p.spot)) / scale).toBeLessThan(1e-9);
		});

	it('the two conventions differ where they should', () => {
		const a = analyzeChainFile(text);
		const b = analyzeChainFile(text, { convention: 'perfiliev' });
		expect(a.total.gex_oi).not.toBe(b.total.gex_oi);
		expect(a.conventions.time_to_expiry).toMatch(/16:00 America\/New_York/);
		expect(b.conventions.time_to_expiry).toMatch(/262/);
	});
});

describe('analysing any file', () => {
	it('gives a report or a ChainParseError, never another failure', () => {
		const small = writeCboeFile({
			spot: SPOT,
			date: '2027-03-10',
			rows: rows().filter((r, i) => i % 9 === 0)
		});
		fc.assert(
			fc.property(
				fc.nat(small.length - 1),
				fc.constantFrom('0', '9', '1e300', '-', ',', '"', '\n', '', '0.0000001'),
				fc.constantFrom('calendar', 'perfiliev'),
				fc.constantFrom('file', 'mid'),
				(at, s, convention, ivFrom) => {
					const text = small.slice(0, at) + s + small.slice(at + 1);
					try {
						const r = analyzeChainFile(text, { convention, ivFrom, profilePoints: 5 });
						expect(r.strikes.length).toBeGreaterThan(0);
					} catch (e) {
						expect(e).toBeInstanceOf(ChainParseError);
					}
				}
			),
			{ numRuns: 150 }
		);
	});
});
