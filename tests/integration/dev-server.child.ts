/**
 * `npm run dev` as a test can drive it: Vite's dev server created programmatically with the
 * project's own vite.config.ts on 127.0.0.1, port 0. Prints one JSON line once the dashboard has
 * Vite's http server (the hand-over of src/lib/server/devServer.ts), and closes on SIGTERM
 * (the embedded service, a child of this process, goes with it).
 */
import { join } from 'node:path';
import { createServer } from 'vite';

const root = join(import.meta.dirname, '..', '..');
const server = await createServer({
	root,
	configFile: join(root, 'vite.config.ts'),
	logLevel: 'warn',
	server: { host: '127.0.0.1', port: 0, strictPort: true }
});
await server.listen();
const address = server.httpServer?.address();
if (!address || typeof address === 'string') throw new Error('dev server has no port');

// The plugin hands the server over asynchronously once it listens; report ready after that.
const seam = (await server.ssrLoadModule(
	'/src/lib/server/httpServer.ts'
)) as typeof import('../../src/lib/server/httpServer');
const deadline = Date.now() + 30_000;
while (!seam.httpServer()) {
	if (Date.now() > deadline) throw new Error('the dev server was never handed to the dashboard');
	await new Promise((r) => setTimeout(r, 50));
}
console.log(JSON.stringify({ event: 'listening', port: address.port }));

process.once('SIGTERM', () => {
	void server.close().finally(() => process.exit(0));
});
