/**
 * `npm run --silent analyze -- <file> [--spot S] [--rate R] [--dividend-yield Q]
 * [--contract-size M] [--format json|csv|cboe] [--convention calendar|perfiliev]
 * [--iv-from file|mid] [--profile[=N]]`: prints one JSON chain report on stdout (see
 * ./chainFile: the format is detected unless given; conventions and skipped are always stated).
 * Bad input (unreadable file, malformed content, invalid values, bad flags) -> message on stderr
 * naming the line or field, exit code 2, nothing on stdout.
 */
import { readFileSync } from 'node:fs';
import { analyzeChainFile, CHAIN_FILE_FORMATS, type ChainFileOptions } from './chainFile';
import { ChainParseError, type ChainOverrides } from './parse';
import { CONVENTION_PRESETS, IV_SOURCES } from './quoteChain';

const USAGE =
	'usage: analyze <chain.json|chain.csv|quotedata.csv> [--spot S] [--rate R] [--dividend-yield Q] [--contract-size M] [--format json|csv|cboe] [--convention calendar|perfiliev] [--iv-from file|mid] [--profile[=N]]';

/** Points of the G(X) profile printed by a bare --profile. */
const PROFILE_POINTS = 200;

class UsageError extends Error {}

function oneOf<T extends string>(name: string, raw: string | undefined, allowed: readonly T[]): T {
	if (!(allowed as readonly (string | undefined)[]).includes(raw))
		throw new UsageError(`${name} must be ${allowed.join(' or ')}, got '${raw ?? ''}'`);
	return raw as T;
}

function parseArgs(argv: string[]): { file: string; options: ChainFileOptions } {
	const overrides: ChainOverrides = {};
	const options: ChainFileOptions = { overrides };
	let file: string | undefined;
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
			case '--format':
				options.format = oneOf(name, value(), CHAIN_FILE_FORMATS);
				break;
			case '--convention':
				options.convention = oneOf(name, value(), CONVENTION_PRESETS);
				break;
			case '--iv-from':
				options.ivFrom = oneOf(name, value(), IV_SOURCES);
				break;
			case '--profile': {
				// Takes a count only as --profile=N, so `--profile file.csv` still reads the file.
				const n = inline === undefined ? PROFILE_POINTS : flagNumber(name, inline);
				if (!Number.isInteger(n) || n < 2 || n > 100_000)
					throw new UsageError(`--profile: points must be an integer 2..100000, got ${n}`);
				options.profilePoints = n;
				break;
			}
			default:
				if (name.startsWith('--')) throw new UsageError(`unknown option ${name}`);
				if (file !== undefined) throw new UsageError(`unexpected argument '${arg}'`);
				file = arg;
		}
	}
	if (file === undefined) throw new UsageError('missing chain file');
	return { file, options };
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
		report = JSON.stringify(analyzeChainFile(text, args.options), null, 2);
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
