/**
 * Feed names are built in one place (src/lib/contract/feeds.ts, on the group grammar of
 * contract/hubs.ts): a template literal that glues a ticker to a package (`${t}_classic_...`,
 * `${ticker}_${pkg}_${category}`, `${t}_spot`) or a pattern that strips one off a group name
 * anywhere else in src/ fails here. Tests may spell groups out; production code may not.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const HOME = new Set(['src/lib/contract/feeds.ts', 'src/lib/contract/hubs.ts']);

/** A group glued by hand, or a group's package suffix matched by hand. */
const HAND_BUILT = [
	/\$\{[^}]+\}_(classic|state|orderflow)(_|\$\{|`)/,
	/\$\{[^}]+\}_spot\b/,
	/\$\{[^}]*\}_\$\{[^}]*(package|pkg)\b[^}]*\}_\$\{/,
	/\/[^/\n]*_\(?(classic|state|orderflow)[^/\n]*\$\//
];
/** Download file names the upstream defines are no group names. */
const NOT_A_GROUP = /filename=|\.json\.gz|\.zip/;

function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
		const path = join(dir, e.name);
		if (e.isDirectory()) return e.name === 'proto' ? [] : sources(path);
		if (!/\.(ts|svelte)$/.test(e.name) || /\.test(-support)?\.ts$/.test(e.name)) return [];
		return [path];
	});
}

/** `file:line: text` of every hand-built group name in `code`. */
export function handBuiltGroups(file: string, code: string): string[] {
	return code
		.split('\n')
		.flatMap((line, i) =>
			HAND_BUILT.some((p) => p.test(line)) && !NOT_A_GROUP.test(line)
				? [`${file}:${i + 1}: ${line.trim()}`]
				: []
		);
}

describe('feed names live in contract/feeds.ts', () => {
	it('no production file outside it builds or strips a group name by hand', () => {
		const found = sources(join(root, 'src'))
			.map((p) => relative(root, p))
			.filter((f) => !HOME.has(f))
			.flatMap((f) => handBuiltGroups(f, readFileSync(join(root, f), 'utf8')));
		expect(found).toEqual([]);
	});

	it('catches the shapes it is meant to catch', () => {
		const bad = [
			'group: () => `${view.ticker}_classic_${view.category}`,',
			'const groups = list.map((t) => `${t}_classic_gex_full`);',
			'return `${rule.ticker}_${rule.package}_${rule.category}`;',
			'return groups.concat(tickers.map((t) => `${t}_spot`));',
			"r.group.replace(/_classic_gex_full$/, '')"
		];
		for (const line of bad) expect(handBuiltGroups('probe.ts', line)).toHaveLength(1);
		const fine = [
			'group: () => feedGroup(feedOf(view.ticker, "classic", view.category)),',
			'`attachment; filename="${ticker}_${pkg}_${category}_${date}.json"`',
			'return `${stem}_${b}`;'
		];
		for (const line of fine) expect(handBuiltGroups('probe.ts', line)).toEqual([]);
	});
});
