/**
 * A small reader of deploy/Dockerfile for the tests: its stages and their instructions, so
 * tests/integration/production.test.ts runs the very commands the image build runs, and
 * tests/integration/deploy-files.test.ts checks the image's shape. Knows only what the file
 * uses: comments, `\` continuations, FROM ... AS, and instructions with their argument text.
 */

export interface Instruction {
	op: string;
	args: string;
}

export interface Stage {
	name: string;
	from: string;
	instructions: Instruction[];
}

export function parseDockerfile(text: string): Stage[] {
	const logical: string[] = [];
	let pending = '';
	for (const raw of text.split('\n')) {
		const line = raw.trim();
		if (!pending && (line === '' || line.startsWith('#'))) continue;
		if (pending && line.startsWith('#')) continue;
		if (line.endsWith('\\')) {
			pending += `${line.slice(0, -1).trim()} `;
			continue;
		}
		logical.push((pending + line).trim());
		pending = '';
	}
	if (pending) throw new Error('Dockerfile ends inside a line continuation');
	const stages: Stage[] = [];
	for (const line of logical) {
		const space = line.search(/\s/);
		const op = (space === -1 ? line : line.slice(0, space)).toUpperCase();
		const args = space === -1 ? '' : line.slice(space + 1).trim();
		if (op === 'FROM') {
			const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
			if (!m) throw new Error(`unreadable FROM: ${args}`);
			stages.push({ from: m[1], name: m[2] ?? String(stages.length), instructions: [] });
			continue;
		}
		const stage = stages.at(-1);
		if (!stage) throw new Error(`${op} before the first FROM`);
		stage.instructions.push({ op, args });
	}
	return stages;
}

export function stage(stages: Stage[], name: string): Stage {
	const found = stages.find((s) => s.name === name);
	if (!found) throw new Error(`Dockerfile has no stage "${name}"`);
	return found;
}

/** The exec form of CMD/ENTRYPOINT/HEALTHCHECK CMD: a JSON array of strings. */
export function execForm(args: string): string[] {
	const value: unknown = JSON.parse(args);
	if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
		throw new Error(`not an exec-form command: ${args}`);
	}
	return value as string[];
}

/** ENV lines (`A=1 B=2`, values without spaces or quotes) as one record. */
export function envOf(s: Stage): Record<string, string> {
	const env: Record<string, string> = {};
	for (const i of s.instructions.filter((x) => x.op === 'ENV')) {
		for (const pair of i.args.split(/\s+/)) {
			const eq = pair.indexOf('=');
			if (eq > 0) env[pair.slice(0, eq)] = pair.slice(eq + 1);
		}
	}
	return env;
}

/** The RUN commands that are npm commands: what the production test executes itself. */
export function npmRuns(s: Stage): string[] {
	return s.instructions.filter((i) => i.op === 'RUN' && /^npm\s/.test(i.args)).map((i) => i.args);
}
