/**
 * Seeded randomness. Every random stream of the market is keyed by a string such as
 * `seed|SPX|2026-11-20|path`, so any (seed, ticker, date) can be regenerated on its own,
 * without replaying other days or tickers.
 */

/** 128-bit string hash (cyrb128), spread into four 32-bit words for the generator state. */
function hash128(key: string): [number, number, number, number] {
	let h1 = 1779033703;
	let h2 = 3144134277;
	let h3 = 1013904242;
	let h4 = 2773480762;
	for (let i = 0; i < key.length; i++) {
		const k = key.charCodeAt(i);
		h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
		h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
		h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
		h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
	}
	h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
	h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
	h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
	h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
	h1 ^= h2 ^ h3 ^ h4;
	h2 ^= h1;
	h3 ^= h1;
	h4 ^= h1;
	return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

/** sfc32: small, fast, passes PractRand far beyond what a trading day draws. */
export class Rng {
	private a: number;
	private b: number;
	private c: number;
	private d: number;
	private spare = NaN;

	constructor(key: string) {
		[this.a, this.b, this.c, this.d] = hash128(key);
		for (let i = 0; i < 12; i++) this.next();
	}

	/** Uniform in [0, 1). */
	next(): number {
		this.a >>>= 0;
		this.b >>>= 0;
		this.c >>>= 0;
		this.d >>>= 0;
		let t = (this.a + this.b) | 0;
		this.a = this.b ^ (this.b >>> 9);
		this.b = (this.c + (this.c << 3)) | 0;
		this.c = (this.c << 21) | (this.c >>> 11);
		this.d = (this.d + 1) | 0;
		t = (t + this.d) | 0;
		this.c = (this.c + t) | 0;
		return (t >>> 0) / 4294967296;
	}

	/** Standard normal (Marsaglia polar, caching the second variate). */
	normal(): number {
		if (!Number.isNaN(this.spare)) {
			const s = this.spare;
			this.spare = NaN;
			return s;
		}
		let u: number;
		let v: number;
		let s: number;
		do {
			u = 2 * this.next() - 1;
			v = 2 * this.next() - 1;
			s = u * u + v * v;
		} while (s >= 1 || s === 0);
		const f = Math.sqrt((-2 * Math.log(s)) / s);
		this.spare = v * f;
		return u * f;
	}

	/** Poisson count with mean `lambda` (inversion; lambda stays small per second). */
	poisson(lambda: number): number {
		if (lambda <= 0) return 0;
		if (lambda > 30) return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * this.normal()));
		const limit = Math.exp(-lambda);
		let k = 0;
		let p = this.next();
		while (p > limit) {
			k++;
			p *= this.next();
		}
		return k;
	}

	/** Integer in [0, n). */
	int(n: number): number {
		return Math.floor(this.next() * n);
	}
}

/** A single uniform in [0, 1) for a key, without keeping a generator. */
export function hashUniform(key: string): number {
	return hash128(key)[0] / 4294967296;
}
