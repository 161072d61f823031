/**
 * What a whole-day view's page asks the browser to load before it can draw (issue 26): the
 * scripts SvelteKit announces in the page's Link header. The client build groups the modules
 * (vite.config.ts, clientChunks) so a page loads about ten scripts, not ~45 that queued on
 * HTTP/1.1's six connections; three.js (~560 KB) is loaded only by the 3D views, on demand, and
 * never announced by a page; the wire codec (protobufjs and the generated messages, ~90 KB) runs
 * in the decode workers only, so no page script carries it. Nothing else takes a connection
 * before the scripts: the page's styles and its icon are in its HTML (svelte.config.js
 * inlineStyleThreshold, app.html), where five stylesheets and the icon held five of the six
 * connections while the scripts waited. The libraries' script (Svelte's runtime among them) begins
 * with V8's compile hint, so it is compiled while it streams in, off the main thread, and only it:
 * the project's shared script holds every view's code, most of it unused by any one page.
 * Every inline script of a page (SvelteKit's start-up one, app.html's early-tap keeper) is
 * allowed by its CSP by hash, never by 'unsafe-inline'.
 * Against the built dashboard, over HTTP.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	startDashboard,
	startStubUpstream,
	type RunningDashboard,
	type StubUpstream
} from './dashboard-support';

/** At most this many scripts per page (the grouped build announces 8-11). */
const MAX_SCRIPTS = 14;

/** V8's explicit compile hint: the whole script compiled as it loads (vite.config.ts). */
const COMPILE_HINT = '//# allFunctionsCalledOnLoad';

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

/** What a page asks for before it draws: its Link header's scripts, its HTML's stylesheets. */
async function announced(path: string): Promise<{ scripts: string[]; html: string; link: string }> {
	const res = await fetch(`${dashboard.base}${path}`);
	expect(res.status, path).toBe(200);
	const html = await res.text();
	const link = res.headers.get('link') ?? '';
	const scripts = [...link.matchAll(/<([^>]+)>;\s*rel="modulepreload"/g)].map((m) =>
		new URL(m[1], `${dashboard.base}${path}`).toString()
	);
	return { scripts, html, link };
}

describe('a page announces a few grouped scripts', () => {
	for (const path of VIEWS) {
		it(`${path}: at most ${MAX_SCRIPTS} scripts, no three.js or codec, the libraries hinted`, async () => {
			const { scripts } = await announced(path);
			expect(scripts.length).toBeGreaterThan(2);
			expect(scripts.length).toBeLessThanOrEqual(MAX_SCRIPTS);
			const hinted: string[] = [];
			for (const url of scripts) {
				const text = await (await fetch(url)).text();
				if (text.startsWith(COMPILE_HINT)) hinted.push(text);
				// three.js's renderer class: the 3D views import it when they draw, never before.
				expect(text.includes('WebGLRenderer'), url).toBe(false);
				// protobufjs's reader (its error text survives minification): the workers' alone.
				expect(text.includes('invalid wire type'), url).toBe(false);
			}
			// One script hinted, the libraries' (Svelte's errors link to svelte.dev/e/ in a build).
			expect(hinted).toHaveLength(1);
			expect(hinted[0]).toContain('https://svelte.dev/e/');
		});
	}
});

describe('a page takes no connection for its styles or its icon', () => {
	for (const path of VIEWS) {
		it(`${path}: styles inline, no stylesheet or icon request`, async () => {
			const { html, link } = await announced(path);
			const head = html.slice(0, html.indexOf('</head>'));
			// SvelteKit keeps each inlined stylesheet as a disabled link (never fetched) for its
			// client-side navigations; an enabled one is a request.
			const sheets = [...head.matchAll(/<link[^>]*rel="stylesheet"[^>]*>/g)].map((m) => m[0]);
			for (const sheet of sheets) expect(sheet).toMatch(/\bdisabled\b/);
			expect(link).not.toMatch(/rel="preload";\s*as="style"|\.css>/);
			// The styles are there, in the page: the dark theme's background among them.
			const styles = [...head.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g)].map((m) => m[1]);
			expect(styles.join('')).toContain('--bg:');
			const icon = /<link\s+rel="icon"\s+href="([^"]*)"/.exec(head)?.[1];
			expect(icon).toMatch(/^data:image\/svg\+xml,/);
		});
	}
});

describe("a page's inline scripts are allowed by its CSP, by hash", () => {
	for (const path of VIEWS) {
		it(`${path}: SvelteKit's start-up script and app.html's early-tap keeper both hashed`, async () => {
			const res = await fetch(`${dashboard.base}${path}`);
			const html = await res.text();
			const csp = res.headers.get('content-security-policy') ?? '';
			const scriptSrc = /(?:^|;)\s*script-src ([^;]*)/.exec(csp)?.[1].split(/\s+/) ?? [];
			expect(scriptSrc).not.toContain("'unsafe-inline'");
			const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
				(m) => m[1]
			);
			// The keeper of taps made before the app starts (src/lib/state/earlyTaps.ts), in the
			// head; SvelteKit's own start-up script in the body.
			expect(inline.some((s) => s.includes('__gexdeckEarly'))).toBe(true);
			expect(inline.length).toBeGreaterThanOrEqual(2);
			for (const text of inline) {
				const hash = `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
				expect(scriptSrc, text.slice(0, 80)).toContain(hash);
			}
		});
	}
});
