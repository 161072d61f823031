/**
 * Loaded into a dashboard process under test with `node --import` (NODE_OPTIONS): its wall clock
 * starts at GEXDECK_TEST_NOW (ISO) and runs at 1x, so the dashboard and an embedded service on a
 * fixed session clock agree on what "now" is. Without it, a service simulating Wed 11:00 ET is
 * rightly called a replay by the dashboard (contract/freshness.ts) whenever the tests run.
 * Test support only: production code never reads GEXDECK_TEST_NOW.
 */
const start = Date.parse(process.env.GEXDECK_TEST_NOW ?? '');
if (Number.isFinite(start)) {
	const RealDate = Date;
	const realNow = RealDate.now.bind(RealDate);
	const offset = start - realNow();
	const now = () => realNow() + offset;
	class ShiftedDate extends RealDate {
		constructor(...args) {
			if (args.length === 0) super(now());
			else super(...args);
		}
		static now() {
			return now();
		}
	}
	globalThis.Date = ShiftedDate;
}
