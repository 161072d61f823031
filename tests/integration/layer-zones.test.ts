/**
 * The layer zones (eslint/layerZones.js, wired in eslint.config.js) fail lint on a wrong-way
 * import and pass the right-way one, zone by zone, so a config change cannot switch them off
 * silently. Runs ESLint's Node API on the project's own config; the probe files do not exist,
 * lintText only names them. Type-aware parsing is switched off here: the zones need no types.
 */
import { describe, expect, it } from 'vitest';
import { eslintProbe } from './eslint-probe.test-support';

/** The layer-zone messages of `code` linted as if it were `file`. */
const probe = eslintProbe();
const zoneErrors = probe('layers/zones');
// Its probe is plain script: linted as a .svelte file it does not parse, as this test has always allowed.
const consoleErrors = probe('no-console', false);

const ts = (specifier: string) => `export { x } from '${specifier}';\n`;
const svelte = (specifier: string) =>
	`<script lang="ts">\n\timport { x } from '${specifier}';\n\tconsole.log(x);\n</script>\n`;

/** [zone, file, forbidden import, allowed import, code shape] */
const cases: [string, string, string, string, (s: string) => string][] = [
	['contract', 'src/lib/contract/probe.ts', '../wire/columnar', './marketCalendar', ts],
	['analytics', 'src/lib/analytics/probe.ts', '../contract/hubs', './levels', ts],
	['wire', 'src/lib/wire/probe.ts', '../analytics/keyStrikes', '../contract/hubs', ts],
	['relay', 'src/lib/relay/probe.ts', '../stream/transport/relayDecode', '../wire/columnar', ts],
	['service', 'src/service/http/probe.ts', '../../lib/relay/protocol', '../../lib/wire/encode', ts],
	['service', 'src/service/probe.ts', '$lib/server/config', '$lib/contract/hubs', ts],
	['market', 'src/service/market/probe.ts', '../engine/live', './clock', ts],
	['market', 'src/service/market/probe.ts', '../history/dayKeys', '../source', ts],
	['browser', 'src/lib/charts/probe.ts', '$lib/server/proxy', '$lib/stream/transport/updates', ts],
	['browser', 'src/lib/live/probe.svelte.ts', '../../service/source', '$lib/cache/routeFetch', ts],
	[
		'browser',
		'src/routes/probe/+page.svelte',
		'$lib/server/config',
		'$lib/contract/newYorkTime',
		svelte
	],
	['browser', 'src/routes/probe/+page.ts', '$lib/server/config', '$lib/state/links', ts],
	[
		'browser',
		'src/lib/components/Probe.svelte',
		'../../service/source',
		'$lib/charts/histogram/classicChain',
		svelte
	],
	['stream', 'src/lib/stream/probe.ts', '$lib/components/format/format', '../relay/protocol', ts],
	[
		'cache',
		'src/lib/cache/probe.ts',
		'../charts/histogram/classicChain',
		'../stream/series/orderflowSeries',
		ts
	],
	['charts', 'src/lib/charts/probe.ts', '../cache/routeFetch', '../stream/transport/updates', ts],
	[
		'charts',
		'src/lib/charts/x/Probe.svelte',
		'$lib/stream/backfill/backfillClient',
		'$lib/stream/backfill/replayTimeline',
		svelte
	],
	[
		'charts',
		'src/lib/charts/x/probe.ts',
		'../../components/ZoomButtons.svelte',
		'../../components/format/format',
		ts
	],
	[
		'format',
		'src/lib/components/format/probe.ts',
		'../ZoomButtons.svelte',
		'../../contract/newYorkTime',
		ts
	],
	[
		'stream-folds',
		'src/lib/stream/ring/probe.ts',
		'../transport/workerCore',
		'../transport/updates',
		ts
	],
	[
		'stream-folds',
		'src/lib/stream/series/probe.ts',
		'../backfill/backfill',
		'../transport/updates',
		ts
	],
	['state', 'src/lib/state/probe.ts', '../stream/transport/updates', '../contract/newYorkTime', ts],
	[
		'server',
		'src/lib/server/stream/probe.ts',
		'../../stream/transport/streamClient',
		'../../relay/protocol',
		ts
	],
	['server', 'src/hooks.server.ts', '$lib/state/links', '$lib/server/config', ts],
	['service', 'src/service/http/probe.ts', '../../lib/server/config', '../../lib/server/log', ts],
	['log', 'src/lib/server/log.ts', './config', 'node:fs', ts],
	[
		'server routes',
		'src/routes/probe/+page.server.ts',
		'$lib/charts/format',
		'$lib/server/config',
		ts
	],
	[
		'server routes',
		'src/routes/probe/+server.ts',
		'$lib/live/liveView.svelte',
		'$lib/server/proxy',
		ts
	],
	[
		'server routes',
		'src/routes/probe/x.server.ts',
		'$lib/cache/routeFetch',
		'$lib/contract/feeds',
		ts
	]
];

describe('layer zones', () => {
	it.each(cases)(
		'%s: %s may not import %s but may import %s',
		async (zone, file, bad, good, code) => {
			const errors = await zoneErrors(file, code(bad));
			expect(errors).toHaveLength(1);
			expect(errors[0]).toContain(`breaks the ${zone} zone`);
			expect(await zoneErrors(file, code(good))).toEqual([]);
		}
	);

	it('leaves server code free to import the server, and server tests the browser decoder', async () => {
		expect(await zoneErrors('src/routes/probe/+page.server.ts', ts('$lib/server/config'))).toEqual(
			[]
		);
		expect(await zoneErrors('src/routes/probe/+server.ts', ts('$lib/server/proxy'))).toEqual([]);
		expect(
			await zoneErrors(
				'src/lib/server/recorder/probe.test.ts',
				ts('../../stream/backfill/backfill')
			)
		).toEqual([]);
	});

	it('forbids console.* in server code (one logger) and allows it in its tests', async () => {
		const code = `console.log('x');\nexport {};\n`;
		const noConsole = async (file: string) => (await consoleErrors(file, code)).length;
		for (const file of [
			'src/lib/server/probe.ts',
			'src/service/http/probe.ts',
			'src/hooks.server.ts',
			'src/routes/probe/+page.server.ts',
			'src/routes/probe/+server.ts',
			'src/routes/probe/x.server.ts'
		]) {
			expect(await noConsole(file), file).toBe(1);
		}
		expect(await noConsole('src/lib/server/probe.test.ts')).toBe(0);
		expect(await noConsole('src/routes/probe/+page.svelte')).toBe(0);
		expect(await noConsole('src/lib/stream/probe.ts')).toBe(0);
	});

	it('lets server route files read URL state and take types from browser modules', async () => {
		const file = 'src/routes/probe/+page.server.ts';
		expect(await zoneErrors(file, ts('$lib/state/viewState'))).toEqual([]);
		const typeOnly = `import type { X } from '$lib/live/streamFeed.svelte';\nexport type Y = X;\n`;
		expect(await zoneErrors(file, typeOnly)).toEqual([]);
	});

	it('checks dynamic imports and worker URLs too', async () => {
		const dynamic = `export const m = () => import('$lib/server/config');\n`;
		expect(await zoneErrors('src/lib/stream/probe.ts', dynamic)).toHaveLength(1);
		const worker = `export const w = new URL('../../service/main.ts', import.meta.url);\n`;
		expect(await zoneErrors('src/lib/stream/probe.ts', worker)).toHaveLength(1);
	});
});
