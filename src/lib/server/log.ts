/**
 * The dashboard server's one logger. By default a line reads `gexdeck: <message>` (stdout for
 * info, stderr for warnings and errors), as a person at a terminal expects; with
 * GEXDECK_LOG=json every line is one JSON object ({time, level, msg, ...fields}) for journald,
 * Docker or a log shipper. Fields never include keys or cookies: callers pass only what is safe.
 *
 * Reads process.env itself rather than config(): a configuration error must still be logged.
 * It imports nothing of the project, so the embedded service (src/service, its own process) logs
 * through it too: lint forbids console.* in all server code (eslint.config.js).
 * Every line is scrubbed of integration tokens (a URL's `token=`, a Bearer header, a `gxd_`
 * token) whatever the caller passed (scrubTokens).
 */

/** `text` with every token value replaced: `token=...` in URLs, Bearer values, `gxd_` tokens. */
export function scrubTokens(text: string): string {
	return text
		.replace(/([?&;]token=)[^&\s"'#]*/gi, '$1[redacted]')
		.replace(/(Bearer\s+)\S+/gi, '$1[redacted]')
		.replace(/gxd_[A-Za-z0-9_-]+/g, 'gxd_[redacted]');
}

export type LogLevel = 'info' | 'warn' | 'error';
export type LogFields = Record<string, string | number | boolean | undefined>;

export interface LogSink {
	out(line: string): void;
	err(line: string): void;
}

const consoleSink: LogSink = {
	out: (line) => process.stdout.write(`${line}\n`),
	err: (line) => process.stderr.write(`${line}\n`)
};

/** One log line in the given format (pure, for tests). */
export function formatLine(
	format: 'json' | 'text',
	level: LogLevel,
	msg: string,
	fields: LogFields = {},
	time = new Date()
): string {
	if (format === 'json') {
		const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
		return JSON.stringify({ time: time.toISOString(), level, msg, ...defined });
	}
	const extra = Object.entries(fields)
		.filter(([, v]) => v !== undefined)
		.map(([k, v]) => `${k}=${typeof v === 'string' && /\s/.test(v) ? JSON.stringify(v) : v}`);
	return `gexdeck: ${msg}${extra.length ? ` (${extra.join(' ')})` : ''}`;
}

/** The format chosen by GEXDECK_LOG (`json`, else text). */
export function logFormat(env: Record<string, string | undefined> = process.env): 'json' | 'text' {
	return env.GEXDECK_LOG?.trim().toLowerCase() === 'json' ? 'json' : 'text';
}

let sink: LogSink = consoleSink;

/** Tests redirect the output; returns the previous sink. */
export function setLogSink(next: LogSink): LogSink {
	const previous = sink;
	sink = next;
	return previous;
}

function write(level: LogLevel, msg: string, fields?: LogFields): void {
	const line = scrubTokens(formatLine(logFormat(), level, msg, fields));
	if (level === 'info') sink.out(line);
	else sink.err(line);
}

/** A thrown value as text: the stack for errors, else its string form. */
export function errorText(err: unknown): string {
	return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

export const log = {
	info: (msg: string, fields?: LogFields) => write('info', msg, fields),
	warn: (msg: string, fields?: LogFields) => write('warn', msg, fields),
	error: (msg: string, fields?: LogFields) => write('error', msg, fields),
	/**
	 * A line another process wrote (the embedded service): as is, or as JSON with its source. A
	 * child that logs JSON itself (it shares GEXDECK_LOG) is passed on with `source` added.
	 */
	forward(source: string, raw: string): void {
		const line = scrubTokens(raw);
		if (logFormat() !== 'json') return sink.err(line);
		let parsed: unknown;
		try {
			parsed = line.startsWith('{') ? JSON.parse(line) : undefined;
		} catch {
			parsed = undefined;
		}
		sink.err(
			parsed && typeof parsed === 'object'
				? JSON.stringify({ ...parsed, source })
				: formatLine('json', 'info', line, { source })
		);
	}
};
