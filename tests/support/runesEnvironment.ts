/**
 * A Vitest environment for testing rune classes (`*.svelte.test.ts`): plain Node globals, but
 * modules are transformed for Vite's client environment, so Svelte compiles them (and resolves
 * itself) for the browser, where `$effect` runs. No DOM: these tests drive classes, not markup.
 */
import type { Environment } from 'vitest/environments';

export default {
	name: 'runes',
	viteEnvironment: 'client',
	setup() {
		return { teardown() {} };
	}
} satisfies Environment;
