/**
 * Compiles the embedded service (src/service/main.ts and what it imports) into
 * build/service/main.js with Vite's SSR build, with the history generator's child process
 * (src/service/history/tickerDayPart.ts) beside it as tickerDayPart.js: ES modules for plain `node`, with the
 * packages it uses (ws, fflate) left as imports of `dependencies`, so a production install
 * (`npm ci --omit=dev`) runs it. Called by vite.config.ts after the app's own build.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Where the compiled service lands, relative to the build folder (read by embedded.ts too). */
export const SERVICE_ENTRY = 'service/main.js';

export async function buildEmbeddedService(outDir = join(root, 'build')) {
	const { build } = await import('vite');
	await build({
		configFile: false,
		root,
		logLevel: 'warn',
		// The service reads no Vite env and has no public folder to copy.
		publicDir: false,
		build: {
			ssr: true,
			outDir: join(outDir, dirname(SERVICE_ENTRY)),
			emptyOutDir: true,
			target: 'node20',
			minify: false,
			sourcemap: true,
			rollupOptions: {
				input: {
					main: join(root, 'src', 'service', 'main.ts'),
					// Spawned by history/tickerDayProcesses.ts from the same folder.
					tickerDayPart: join(root, 'src', 'service', 'history', 'tickerDayPart.ts')
				},
				// Flat: bundled code finds tickerDayPart.js beside itself (import.meta.url).
				output: { entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js', format: 'es' }
			}
		}
	});
}
