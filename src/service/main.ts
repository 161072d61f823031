/**
 * `npm run service -- [options]`: the embedded service on its own (REST and WebSocket hubs).
 *
 *   --port <p>          TCP port (0 = ephemeral; default 8787)
 *   --host <h>          interface (default 127.0.0.1)
 *   --accounts <file>   accounts JSON (default: built-in demo accounts)
 *   --data-dir <dir>    quota counters, outbox, history and reports (default data/service)
 *   --clock session|real  session (default) maps wall time onto a running session
 *   --start <ISO time>  simulated start instant
 *   --speed <x>         simulated seconds per wall second
 *   --seed <n>          market seed
 *   --tickers <a,b,..>  simulate only these tickers (default: the whole universe)
 *   --payloads observed|documented  State payload shape: as the live service sends them
 *   --history-wait <ms> how long a history request waits for its day before answering 504 with
 *                       its progress (default 60000)
 *                       (default: greek profiles with one net value per strike and null put
 *                       fields, State OI fields 0) or the documented call/put split
 *   --ready-json        print one JSON line {"event":"ready",...} before the banner
 *   --print-keys        list the accounts and their keys, then exit
 */
import { AccountRegistry } from './accounts/registry';
import { attachHubs } from './hubs/index';
import { startService, type StartServiceOptions } from './server';
import { isPayloadProfile, PAYLOAD_PROFILES, type PayloadProfile } from './engine/profiles';
import { errorText, log, setLogSink } from '../lib/server/log';

interface CliOptions {
	port: number;
	host: string;
	accounts?: string;
	dataDir: string;
	clock?: 'session' | 'real';
	start?: string;
	speed?: number;
	seed?: number;
	tickers?: string[];
	payloads?: PayloadProfile;
	historyWaitMs?: number;
	readyJson: boolean;
	printKeys: boolean;
}

const USAGE =
	'usage: npm run service -- [--port p] [--host h] [--accounts file] [--data-dir dir] ' +
	'[--clock session|real] [--start ISO] [--speed x] [--seed n] [--tickers a,b] [--payloads observed|documented] [--history-wait ms] [--ready-json] [--print-keys]';

function parseArgs(argv: string[]): CliOptions {
	const out: CliOptions = {
		port: 8787,
		host: '127.0.0.1',
		dataDir: 'data/service',
		readyJson: false,
		printKeys: false
	};
	for (let i = 0; i < argv.length; i++) {
		const flag = argv[i];
		const value = () => {
			const v = argv[++i];
			if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value\n${USAGE}`);
			return v;
		};
		const number = (name: string, v: string, check: (n: number) => boolean) => {
			const n = Number(v);
			if (v.trim() === '' || !Number.isFinite(n) || !check(n)) {
				throw new Error(`${name}: invalid value ${JSON.stringify(v)}\n${USAGE}`);
			}
			return n;
		};
		switch (flag) {
			case '--port':
				out.port = number('--port', value(), (n) => Number.isInteger(n) && n >= 0 && n < 65536);
				break;
			case '--host':
				out.host = value();
				break;
			case '--accounts':
				out.accounts = value();
				break;
			case '--data-dir':
				out.dataDir = value();
				break;
			case '--clock': {
				const v = value();
				if (v !== 'session' && v !== 'real')
					throw new Error(`--clock: expected session or real\n${USAGE}`);
				out.clock = v;
				break;
			}
			case '--start': {
				const v = value();
				if (Number.isNaN(Date.parse(v)))
					throw new Error(`--start: not an ISO time: ${v}\n${USAGE}`);
				out.start = v;
				break;
			}
			case '--speed':
				out.speed = number('--speed', value(), (n) => n > 0);
				break;
			case '--seed':
				out.seed = number('--seed', value(), (n) => Number.isInteger(n));
				break;
			case '--tickers':
				out.tickers = value()
					.split(',')
					.map((t) => t.trim())
					.filter(Boolean);
				break;
			case '--payloads': {
				const v = value();
				if (!isPayloadProfile(v)) {
					throw new Error(`--payloads: expected ${PAYLOAD_PROFILES.join(' or ')}\n${USAGE}`);
				}
				out.payloads = v;
				break;
			}
			case '--history-wait':
				out.historyWaitMs = number('--history-wait', value(), (n) => Number.isInteger(n) && n >= 0);
				break;
			case '--ready-json':
				out.readyJson = true;
				break;
			case '--print-keys':
				out.printKeys = true;
				break;
			case '--help':
			case '-h':
				process.stdout.write(`${USAGE}\n`);
				process.exit(0);
				break;
			default:
				throw new Error(`unknown option ${flag}\n${USAGE}`);
		}
	}
	return out;
}

function printKeys(registry: AccountRegistry): void {
	for (const a of registry.summaries()) {
		const addons = a.addons.length ? ` + ${a.addons.join(', ')}` : '';
		process.stdout.write(`${a._id} (${a.max_level}${addons})\n`);
		for (const k of a.keys) process.stdout.write(`  ${k.product}/${k.integration}  ${k.key}\n`);
	}
}

async function main(): Promise<void> {
	let cli: CliOptions;
	let registry: AccountRegistry;
	try {
		cli = parseArgs(process.argv.slice(2));
		registry = AccountRegistry.load(cli.accounts, cli.dataDir);
	} catch (err) {
		log.error((err as Error).message);
		process.exit(2);
	}
	if (cli.printKeys) {
		printKeys(registry);
		return;
	}
	const options: StartServiceOptions = {
		port: cli.port,
		host: cli.host,
		dataDir: cli.dataDir,
		accounts: registry,
		clock: cli.clock,
		start: cli.start,
		speed: cli.speed,
		seed: cli.seed,
		tickers: cli.tickers,
		marketOptions: {
			...(cli.payloads ? { payloads: cli.payloads } : {}),
			...(cli.historyWaitMs !== undefined ? { historyWaitMs: cli.historyWaitMs } : {})
		}
	};
	// With --ready-json the ready line is the first line on stdout (the parent's protocol): what
	// the service logs while it starts (a small universe is all live before it listens) waits
	// until the ready line and the banner are out.
	const held: string[] = [];
	const sink = cli.readyJson
		? setLogSink({ out: (line) => held.push(line), err: (line) => sink?.err(line) })
		: undefined;
	/** The log as it was, then what it held: after the ready line and banner, or a failure. */
	const release = (banner?: string) => {
		if (sink) setLogSink(sink);
		if (banner) log.info(banner);
		for (const line of held.splice(0)) sink?.out(line);
	};
	let service: Awaited<ReturnType<typeof startService>>;
	try {
		service = await startService(options);
		// Streaming (/v2/negotiate and /client/hubs/*) on the same port, accounts and market.
		await attachHubs(service);
	} catch (err) {
		release();
		throw err;
	}
	if (cli.readyJson) {
		// The parent's protocol on stdout (embedded.ts reads it), not a log line.
		process.stdout.write(
			`${JSON.stringify({ event: 'ready', base_url: service.url, accounts: registry.summaries() })}\n`
		);
	}
	release(`service listening on ${service.url}`);

	let stopping = false;
	const stop = (signal: string) => {
		if (stopping) return;
		stopping = true;
		log.info(`service: ${signal}, shutting down`);
		// A generation in progress must not keep a stopping service alive for long.
		setTimeout(() => process.exit(1), 10_000).unref();
		service.close().then(
			() => process.exit(0),
			(err: unknown) => {
				log.error('service: close failed', { error: errorText(err) });
				process.exit(1);
			}
		);
	};
	process.on('SIGINT', () => stop('SIGINT'));
	process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
	log.error(err instanceof Error ? err.message : String(err));
	process.exit(1);
});
