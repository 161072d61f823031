import js from '@eslint/js';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import ts from 'typescript-eslint';
import svelteConfig from './svelte.config.js';
import layers from './eslint/layerZones.js';
import apiFetch from './eslint/apiFetch.js';

export default ts.config(
	{
		ignores: [
			'build/',
			'.svelte-kit/',
			'node_modules/',
			'data/',
			'test-results/',
			'playwright-report/',
			'bench/results/',
			'src/lib/proto/generated/',
			'.stryker-tmp/',
			'reports/'
		]
	},
	js.configs.recommended,
	...ts.configs.recommended,
	...svelte.configs.recommended,
	{
		languageOptions: { globals: { ...globals.browser, ...globals.node } },
		rules: {
			'no-undef': 'off',
			'@typescript-eslint/no-unused-vars': [
				'error',
				{ argsIgnorePattern: '^_', varsIgnorePattern: '^_' }
			]
		}
	},
	{
		files: ['**/*.ts', '**/*.svelte', '**/*.svelte.ts'],
		languageOptions: {
			parserOptions: {
				projectService: true,
				extraFileExtensions: ['.svelte'],
				parser: ts.parser,
				svelteConfig
			}
		},
		rules: {
			'@typescript-eslint/no-floating-promises': 'error',
			'@typescript-eslint/no-misused-promises': 'error'
		}
	},
	{
		// One logger on the server (src/lib/server/log.ts, honouring GEXDECK_LOG=json): a console
		// line there would not be JSON. Tests may print.
		files: [
			'src/lib/server/**/*.ts',
			'src/service/**/*.ts',
			'src/hooks.server.ts',
			'src/routes/**/*.server.ts',
			'src/routes/**/+server.ts'
		],
		ignores: ['**/*.test.ts', '**/*.test-support.ts'],
		rules: { 'no-console': 'error' }
	},
	{
		// docs/ARCHITECTURE.md "Layers and zones": eslint/layerZones.js holds the zones.
		files: ['**/*.ts', '**/*.js', '**/*.svelte'],
		plugins: { layers },
		rules: { 'layers/zones': 'error' }
	},
	{
		// One fetch path to /api from the browser: eslint/apiFetch.js.
		files: ['src/**/*.ts', 'src/**/*.js', 'src/**/*.svelte'],
		plugins: { apiFetch },
		rules: { 'apiFetch/no-raw-api-fetch': 'error' }
	},
	{
		// One number format (src/lib/components/format/format.ts: one minus sign, strikes as the grid
		// has them, GEX with its unit): views do not format numbers by hand.
		files: [
			'src/routes/**/*.svelte',
			'src/lib/charts/**/*.svelte',
			'src/lib/components/**/*.svelte'
		],
		rules: {
			'no-restricted-syntax': [
				'error',
				{
					selector: 'CallExpression[callee.property.name=/^(toFixed|toLocaleString|toPrecision)$/]',
					message: 'Format numbers with src/lib/components/format/format.ts, the one number format.'
				},
				{
					selector: "NewExpression[callee.object.name='Intl'][callee.property.name='NumberFormat']",
					message: 'Format numbers with src/lib/components/format/format.ts, the one number format.'
				}
			]
		}
	}
);
