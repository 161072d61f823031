import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import adapter from '@sveltejs/adapter-node';
import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';

/**
 * The CSP hashes of app.html's own inline scripts (the early taps' keeper): SvelteKit hashes the
 * scripts it writes, not the template's.
 */
function templateScriptHashes() {
	const html = readFileSync(new URL('./src/app.html', import.meta.url), 'utf8');
	return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
		(m) => `sha256-${createHash('sha256').update(m[1]).digest('base64')}`
	);
}

/** @type {import('@sveltejs/kit').Config} */
const config = {
	preprocess: vitePreprocess(),
	kit: {
		adapter: adapter({ out: 'build' }),
		// A page's styles (~25 KB, ~6 KB compressed) go in its HTML: five stylesheet requests
		// took five of HTTP/1.1's six connections while the scripts and the day's overview
		// waited behind them on a cold load (issue 26).
		inlineStyleThreshold: 64 * 1024,
		// CSRF is enforced in src/hooks.server.ts (same host + double-submit token on every
		// state-changing request). SvelteKit's own origin check compares against adapter-node's
		// assumed https origin, which refuses every form on a plain-http loopback dashboard.
		csrf: { trustedOrigins: ['*'] },
		// The CSP is set here so SvelteKit can hash its own inline bootstrap script; no unsafe-eval anywhere.
		csp: {
			mode: 'hash',
			directives: {
				'default-src': ['self'],
				'script-src': ['self', ...templateScriptHashes()],
				'style-src': ['self', 'unsafe-inline'],
				'img-src': ['self', 'data:', 'blob:'],
				'connect-src': ['self'],
				'worker-src': ['self', 'blob:'],
				'object-src': ['none'],
				'base-uri': ['self'],
				'frame-ancestors': ['none'],
				'form-action': ['self']
			}
		}
	}
};

export default config;
