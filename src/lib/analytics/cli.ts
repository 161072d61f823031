/**
 * `npm run --silent analyze -- <file> [--spot S] [--rate R] [--dividend-yield Q]
 * [--contract-size M] [--format json|csv]`: prints one JSON chain report on stdout.
 * Bad input (unreadable file, malformed content, invalid values, bad flags) -> message on stderr
 * naming the line or field, exit code 2, nothing on stdout.
 */
import { readFileSync } from 'node:fs';
import { ChainParseError, parseChain, type ChainFormat, type ChainOverrides } from './parse';
import { analyzeChain } from './report';

const USAGE =
	'usage: analyze <chain.json|chain.csv> [--spot S] [--rate R] [--dividend-yield Q] [--contract-size M] [--format json|csv]';

class UsageError extends Error {}

function parseArgs(argv: string[]): {
	file: string;
	overrides: ChainOverrides;
	format?: ChainFormat;
} {
	const overrides: ChainOverrides = {};
	let file: string | undefined;
	let format: ChainFormat | undefined;
	const flagNumber = (name: string, raw: string | undefined): number => {
		if (raw === undefined) throw new UsageError(`${name} needs a value`);
		const v = Number(raw);
		if (raw.trim() === '' || !Number.isFinite(v))
			throw new UsageError(`${name}: '${raw}' is not a number`);
		return v;
	};
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		const [name, inline] =
			arg.startsWith('--') && arg.includes('=')
				? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
				: [arg, undefined];
		const value = () => inline ?? argv[++i];
		switch (name) {
			case '--spot':
				overrides.spot = flagNumber(name, value());
				break;
			case '--rate':
				overrides.rate = flagNumber(name, value());
				break;
			case '--dividend-yield':
				overrides.dividendYield = flagNumber(name, value());
				break;
			case '--contract-size':
				overrides.contractSize = flagNumber(name, value());
				break;
			case '--format': {
				const f = value();
				if (f !== 'json' && f !== 'csv')
					throw new UsageError(`--format must be json or csv, got '${f}'`);
				format = f;
				break;
			}
			default:
				if (name.startsWith('--')) throw new UsageError(`unknown option ${name}`);
				if (file !== undefined) throw new UsageError(`unexpected argument '${arg}'`);
				file = arg;
		}
	}
	if (file === undefined) throw new UsageError('missing chain file');
	return { file, overrides, format };
}

function main(argv: string[]): number {
	let args: ReturnType<typeof parseArgs>;
	try {
		args = parseArgs(argv);
	} catch (e) {
		process.stderr.write(`analyze: ${(e as Error).message}\n${USAGE}\n`);
		return 2;
	}
	let text: string;
	try {
		text = readFileSync(args.file, 'utf8');
	} catch (e) {
		process.stderr.write(`analyze: cannot read ${args.file}: ${(e as Error).message}\n`);
		return 2;
	}
	let report: string;
	try {
		const parsed = parseChain(text, args.overrides, args.format);
		report = JSON.stringify(analyzeChain(parsed.chain), null, 2);
	} catch (e) {
		if (e instanceof ChainParseError) {
			process.stderr.write(`analyze: ${args.file}: ${e.message}\n`);
			return 2;
		}
		throw e;
	}
	process.stdout.write(report + '\n');
	return 0;
}

process.exitCode = main(process.argv.slice(2));
