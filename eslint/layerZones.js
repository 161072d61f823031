/**
 * The project's layers as a lint rule (docs/ARCHITECTURE.md "Layers and zones"): every import of
 * a project module is resolved to its path under the repository (relative specifiers and
 * `$lib/`) and checked against the zones below, so a wrong-way import fails `npm run lint` instead of waiting for a reviewer.
 * A local rule rather than `no-restricted-imports` patterns because those match the specifier
 * text, and `../../stream/protocol` means a different module in every folder.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Pure layers: the base every other zone may import. */
const PURE = ['src/lib/contract/', 'src/lib/analytics/'];
/** Generated protobuf code, reached only through src/lib/wire. */
const PROTO = 'src/lib/proto/';
const BROWSER = [
	'src/lib/charts/',
	'src/lib/stream/',
	'src/lib/cache/',
	'src/lib/state/',
	'src/lib/components/',
	'src/lib/live/',
	'src/lib/chainImport/'
];
const SERVER_ONLY = ['src/service/', 'src/lib/server/'];
/** The one logger (it imports nothing of the project): the dashboard's and the service's. */
const LOG = 'src/lib/server/log/';

/**
 * `files`: regexes on the linting file's repository path; `except`: files of those that the zone
 * leaves alone; `allow`: the only project folders it may import (besides its own); `deny`: folders
 * it may not import, but for those under `denyExcept`; `typesFromAnywhere`: `import type` is exempt
 * (it leaves no runtime edge). A file in several zones must satisfy all of them.
 */
export const ZONES = [
	{
		name: 'contract',
		files: [/^src\/lib\/contract\//],
		allow: ['src/lib/contract/'],
		why: 'src/lib/contract is pure: it imports nothing else of the project'
	},
	{
		name: 'analytics',
		files: [/^src\/lib\/analytics\//],
		allow: ['src/lib/analytics/'],
		why: 'src/lib/analytics is pure: it imports nothing else of the project'
	},
	{
		name: 'wire',
		files: [/^src\/lib\/wire\//],
		allow: ['src/lib/wire/', 'src/lib/contract/', PROTO],
		why: 'src/lib/wire builds on the contract (and its generated protobuf code) only'
	},
	{
		name: 'relay',
		files: [/^src\/lib\/relay\//],
		allow: ['src/lib/relay/', 'src/lib/wire/', ...PURE],
		why: "the relay's wire format is shared by server and browser: contract, analytics, wire only"
	},
	{
		name: 'shared',
		files: [/^src\/lib\/(alerts|chainImport|levels)\//],
		allow: ['src/lib/alerts/', 'src/lib/chainImport/', 'src/lib/levels/', ...PURE],
		why: 'alert rules, chain import and the levels formats run on both sides: contract and analytics only'
	},
	{
		name: 'service',
		files: [/^src\/service\//],
		allow: ['src/service/', 'src/lib/wire/', PROTO, LOG, ...PURE],
		why: 'the embedded service imports only src/lib/{contract,analytics,wire} and the logger (src/lib/server/log.ts) of the project'
	},
	{
		name: 'market',
		files: [/^src\/service\/market\//],
		deny: ['src/service/engine/', 'src/service/history/'],
		why: 'the market model is below the engine: src/service/market never imports engine/ (or history/, which runs it)'
	},
	{
		name: 'browser',
		files: [
			...BROWSER.map((dir) => new RegExp(`^${dir}`)),
			/^src\/routes\/.*\.svelte$/,
			/^src\/routes\/.*\.svelte\.ts$/,
			/^src\/routes\/(?!.*(\.server\.ts|\/\+server\.ts)$).*\.ts$/
		],
		deny: SERVER_ONLY,
		why: 'browser code never imports src/service or src/lib/server'
	},
	{
		name: 'stream',
		files: [/^src\/lib\/stream\//],
		deny: [
			'src/lib/charts/',
			'src/lib/cache/',
			'src/lib/state/',
			'src/lib/components/',
			'src/lib/live/'
		],
		why: 'src/lib/stream is below the views: transport and decoding know no chart, cache or view state'
	},
	{
		name: 'state',
		files: [/^src\/lib\/state\//],
		deny: [
			'src/lib/charts/',
			'src/lib/stream/',
			'src/lib/cache/',
			'src/lib/components/',
			'src/lib/live/'
		],
		why: 'src/lib/state (URL <-> view state) imports only the pure layers'
	},
	{
		name: 'cache',
		files: [/^src\/lib\/cache\//],
		deny: ['src/lib/charts/', 'src/lib/components/', 'src/lib/live/'],
		why: 'src/lib/cache stores data; it imports no view (charts, components, live pages)'
	},
	{
		name: 'charts',
		files: [/^src\/lib\/charts\//],
		// The stream's fetching client (recorded days, backfills) included: a chart fetches nothing.
		deny: [
			'src/lib/cache/',
			'src/lib/components/',
			'src/lib/live/',
			'src/lib/stream/backfill/backfillClient/'
		],
		// Number formatting is shared by charts and controls; it imports nothing of the views.
		denyExcept: ['src/lib/components/format/'],
		why: 'src/lib/charts draw what they are given; fetching and caching live in cache/ and live/, controls in components/'
	},
	{
		name: 'format',
		files: [/^src\/lib\/components\/format\//],
		allow: ['src/lib/components/format/', ...PURE],
		why: 'src/lib/components/format is pure formatting, shared by charts and controls: contract and analytics only'
	},
	{
		name: 'stream-folds',
		files: [/^src\/lib\/stream\/(ring|series)\//],
		// A test may check a fold against what the transport reports.
		except: [/\.test\.ts$/],
		deny: ['src/lib/stream/transport/', 'src/lib/stream/backfill/'],
		denyExcept: ['src/lib/stream/transport/updates/'],
		why: 'the ring and the series fold updates (transport/updates) and know neither the worker nor backfill'
	},
	{
		name: 'log',
		files: [/^src\/lib\/server\/log\.ts$/],
		allow: [],
		why: 'the logger is shared with the embedded service: it imports nothing of the project'
	},
	{
		name: 'server',
		files: [/^src\/lib\/server\//, /^src\/hooks\.server\.ts$/],
		// A server test may decode what the server wrote with the browser's own decoder.
		except: [/\.test\.ts$/],
		deny: BROWSER,
		why: 'the dashboard server shares code with the browser only through contract, analytics, wire and relay'
	},
	{
		name: 'server routes',
		// SvelteKit's server half of a route: its load and actions run on the dashboard server.
		// src/lib/state (URL <-> view state, pure) is read on both sides: the home redirect parses
		// the last view; a type the page and its load share may come from a browser module.
		files: [/^src\/routes\/.*(\.server\.ts|\/\+server\.ts)$/],
		deny: BROWSER.filter((dir) => dir !== 'src/lib/state/' && dir !== 'src/lib/chainImport/'),
		typesFromAnywhere: true,
		why: 'server route files (+page.server.ts, +server.ts, *.server.ts) run on the dashboard server: they import no browser code (charts, stream, cache, components, live) but its types'
	}
];

/** Repository path (`src/lib/stream/transport/coalescer`) of an import, or undefined for a package or virtual module. */
export function resolveImport(fromFile, specifier) {
	let target;
	if (specifier.startsWith('$lib/') || specifier === '$lib')
		target = path.join(ROOT, 'src/lib', specifier.slice(4));
	else if (specifier.startsWith('.')) target = path.resolve(path.dirname(fromFile), specifier);
	else return undefined;
	const rel = path.relative(ROOT, target).split(path.sep).join('/');
	return rel.startsWith('..') ? undefined : rel;
}

/** The zone a file's import of `target` breaks, or undefined. */
export function brokenZone(file, target, typeOnly = false) {
	const t = `${target}/`;
	const within = (dirs) => dirs.some((dir) => t.startsWith(dir));
	for (const zone of ZONES) {
		if (!zone.files.some((re) => re.test(file))) continue;
		if (zone.except?.some((re) => re.test(file))) continue;
		if (typeOnly && zone.typesFromAnywhere) continue;
		if (zone.allow && !within(zone.allow)) return zone;
		if (zone.deny && within(zone.deny) && !within(zone.denyExcept ?? [])) return zone;
	}
	return undefined;
}

const rule = {
	meta: {
		type: 'problem',
		docs: { description: 'Keep imports inside the layers of docs/ARCHITECTURE.md' },
		schema: [],
		messages: { zone: "'{{specifier}}' ({{target}}) breaks the {{zone}} zone: {{why}}." }
	},
	create(context) {
		const file = path.relative(ROOT, context.physicalFilename).split(path.sep).join('/');
		if (file.startsWith('..')) return {};
		function check(node, source) {
			if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
			const target = resolveImport(context.physicalFilename, source.value);
			if (!target) return;
			const typeOnly = node.importKind === 'type' || node.exportKind === 'type';
			const zone = brokenZone(file, target, typeOnly);
			if (zone)
				context.report({
					node: source,
					messageId: 'zone',
					data: { specifier: source.value, target, zone: zone.name, why: zone.why }
				});
		}
		return {
			ImportDeclaration: (node) => check(node, node.source),
			ExportNamedDeclaration: (node) => check(node, node.source),
			ExportAllDeclaration: (node) => check(node, node.source),
			ImportExpression: (node) => check(node, node.source),
			// Workers: new URL('./worker.ts', import.meta.url)
			NewExpression: (node) => {
				if (node.callee.type === 'Identifier' && node.callee.name === 'URL')
					check(node, node.arguments[0]);
			}
		};
	}
};

export default { meta: { name: 'gexdeck-layers' }, rules: { zones: rule } };
