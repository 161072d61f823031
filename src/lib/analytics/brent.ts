/**
 * Brent's root finder (inverse quadratic interpolation, secant and bisection) on a bracket
 * [a, b] with f(a) and f(b) of opposite signs (or one of them zero).
 */
export function brentRoot(
	f: (x: number) => number,
	a: number,
	b: number,
	fa: number,
	fb: number,
	xTolerance: number,
	maxIterations = 200
): number {
	if (fa === 0) return a;
	if (fb === 0) return b;
	if (fa * fb > 0) throw new RangeError('brentRoot: the bracket does not change sign');
	let c = a;
	let fc = fa;
	let d = b - a;
	let e = d;
	for (let it = 0; it < maxIterations; it++) {
		if (fb * fc > 0) {
			c = a;
			fc = fa;
			d = b - a;
			e = d;
		}
		if (Math.abs(fc) < Math.abs(fb)) {
			a = b;
			b = c;
			c = a;
			fa = fb;
			fb = fc;
			fc = fa;
		}
		const tol = 2 * Number.EPSILON * Math.abs(b) + 0.5 * xTolerance;
		const m = 0.5 * (c - b);
		if (Math.abs(m) <= tol || fb === 0) return b;
		if (Math.abs(e) >= tol && Math.abs(fa) > Math.abs(fb)) {
			let p: number;
			let q: number;
			const s = fb / fa;
			if (a === c) {
				p = 2 * m * s;
				q = 1 - s;
			} else {
				const qq = fa / fc;
				const r = fb / fc;
				p = s * (2 * m * qq * (qq - r) - (b - a) * (r - 1));
				q = (qq - 1) * (r - 1) * (s - 1);
			}
			if (p > 0) q = -q;
			else p = -p;
			if (2 * p < Math.min(3 * m * q - Math.abs(tol * q), Math.abs(e * q))) {
				e = d;
				d = p / q;
			} else {
				d = m;
				e = d;
			}
		} else {
			d = m;
			e = d;
		}
		a = b;
		fa = fb;
		b += Math.abs(d) > tol ? d : m > 0 ? tol : -tol;
		fb = f(b);
	}
	return b;
}
