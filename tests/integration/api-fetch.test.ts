/**
 * One fetch path to /api from the browser (eslint/apiFetch.js, wired in eslint.config.js):
 * a hand-written fetch of `/api...` fails lint anywhere under src/ but in
 * src/lib/cache/routeFetch.ts, and other fetches pass, so a config change cannot switch the rule
 * off silently. Runs ESLint's Node API on the project's own config; the probe files do not
 * exist, lintText only names them. Type-aware parsing is switched off: the rule needs no types.
 */
import { describe, expect, it } from 'vitest';
import { eslintProbe } from './eslint-probe.test-support';

const rawFetchErrors = eslintProbe()('apiFetch/no-raw-api-fetch');

const ts = (call: string) => `export const f = () => ${call};\n`;
const svelte = (call: string) =>
	`<script lang="ts">\n\tconst f = () => ${call};\n\tconsole.log(f);\n</script>\n`;

describe('one fetch path to /api', () => {
	it.each([
		['src/routes/watchlist/probe.svelte.ts', ts("fetch('/api/tickers')")],
		['src/routes/watchlist/probe.svelte.ts', ts('fetch(`/api/${t}/classic/gex_full/majors`)')],
		['src/lib/components/Probe.svelte', svelte("fetch('/api/tickers', { signal })")],
		['src/lib/live/probe.ts', ts("window.fetch('/api')")],
		['src/lib/live/probe.ts', ts("globalThis.fetch('/api?x=1')")]
	])('%s: %s fails', async (file, code) => {
		const errors = await rawFetchErrors(file, code);
		expect(errors).toHaveLength(1);
		expect(errors[0]).toContain('fetchRoute');
	});

	it.each([
		['src/lib/cache/routeFetch.ts', ts('fetch(`/api/${route}`, { signal })')],
		['src/lib/stream/backfill/probe.ts', ts('fetch(`/history/${ticker}`)')],
		['src/routes/watchlist/probe.ts', ts("fetch('/apiary')")],
		['src/lib/live/probe.ts', ts('fetch(url)')],
		['src/lib/live/probe.ts', ts("fetchRoute('tickers', signal)")]
	])('%s: %s passes', async (file, code) => {
		expect(await rawFetchErrors(file, code)).toEqual([]);
	});
});
