/**
 * ESLint's Node API on the project's own config, for the tests that a lint rule still fails
 * what it should (api-fetch.test.ts, layer-zones.test.ts), so a config change cannot switch it
 * off silently. The probe files do not exist, lintText only names them. Type-aware parsing is
 * switched off: these rules need no types.
 */
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, expect } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Registers the linter's set-up; `probe(ruleId)(file, code)` is then the messages of rule
 * `ruleId` on `code` linted as if it were `file` (a path under the project root), and a fatal
 * (parse) message fails the test unless `parses` is false (code that is no valid `file`).
 */
export function eslintProbe(): (
	ruleId: string,
	parses?: boolean
) => (file: string, code: string) => Promise<string[]> {
	let eslint: ESLint;
	beforeAll(() => {
		eslint = new ESLint({
			cwd: root,
			overrideConfig: [
				{
					files: ['**/*.ts', '**/*.svelte'],
					languageOptions: { parserOptions: { projectService: false } },
					rules: {
						'@typescript-eslint/no-floating-promises': 'off',
						'@typescript-eslint/no-misused-promises': 'off'
					}
				}
			]
		});
	});
	return (ruleId, parses = true) =>
		async (file, code) => {
			const [result] = await eslint.lintText(code, { filePath: `${root}/${file}` });
			if (parses) expect(result.messages.filter((m) => m.fatal)).toEqual([]);
			return result.messages.filter((m) => m.ruleId === ruleId).map((m) => m.message);
		};
}
