/**
 * What a whole-day view's page asks the browser to load before it can draw (issue 26): the
 * scripts SvelteKit announces in the page's Link header. The client build groups the modules
 * (vite.config.ts, clientChunks) so a page loads about ten scripts, not ~45 that queued on
 * HTTP/1.1's six connections; three.js (~560 KB) is loaded only by the 3D views, on demand, and
 * never announced by a page; the wire codec (protobufjs and the generated messages, ~90 KB) runs
 * in the decode workers only, so no page script carries it. Against the built dashboard, over
 * HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	startDashboard,
	startStubUpstream,
	type RunningDashboard,
	type StubUpstream
} from './dashboard-support';

/** At most this many scripts per page (the grouped build announces 8-11). */
const MAX_SCRIPTS = 14;

const VIEWS = [
	'/SPX/heatmap/gex_full',
	'/levels/SPX',
	'/SPX/classic/gex_full',
	'/SPX/orderflow',
	'/chain'
];

let stub: StubUpstream;
let dashboard: RunningDashboard;

beforeAll(async () => {
	stub = await startStubUpstream();
	dashboard = await startDashboard(stub.env);
});

afterAll(async () => {
	await dashboard?.stop();
	await stub?.close();
});

/** The script addresses a page's Link header announces (modulepreload). */
async function announcedScripts(path: string): Promise<string[]> {
	const res = await fetch(`${dashboard.base}${path}`);
	expect(res.status, path).toBe(200);
	await res.arrayBuffer();
	const link = res.headers.get('link') ?? '';
	return [...link.matchAll(/<([^>]+)>;\s*rel="modulepreload"/g)].map((m) =>
		new URL(m[1], `${dashboard.base}${path}`).toString()
	);
}

describe('a page announces a few grouped scripts', () => {
	for (const path of VIEWS) {
		it(`${path}: at most ${MAX_SCRIPTS} scripts, neither three.js nor the wire codec`, async () => {
			const scripts = await announcedScripts(path);
			expect(scripts.length).toBeGreaterThan(2);
			expect(scripts.length).toBeLessThanOrEqual(MAX_SCRIPTS);
			for (const url of scripts) {
				const text = await (await fetch(url)).text();
				// three.js's renderer class: the 3D views import it when they draw, never before.
				expect(text.includes('WebGLRenderer'), url).toBe(false);
				// protobufjs's reader (its error text survives minification): the workers' alone.
				expect(text.includes('invalid wire type'), url).toBe(false);
			}
		});
	}
});
