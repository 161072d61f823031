/**
 * `npm run --silent mcp`: the MCP stdio transport for an assistant on the same machine. It runs
 * no tool itself: it relays every JSON-RPC message between stdin/stdout and the running
 * dashboard's `/mcp` (Streamable HTTP, the session's GET stream included, so resource
 * notifications arrive too). Going through the dashboard is what keeps it at zero extra
 * upstream calls: the dashboard already holds the levels, the recording and the firings.
 *
 *   GEXDECK_MCP_URL     default http://127.0.0.1:$PORT/mcp (PORT default 3000)
 *   GEXDECK_TOKEN       an integration token with the mcp scope, or
 *   GEXDECK_TOKEN_FILE  a file holding it (first line)
 *
 * Nothing but protocol goes to stdout; problems go to stderr.
 */
import { readFileSync } from 'node:fs';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

function fail(message: string): never {
	process.stderr.write(`gexdeck mcp: ${message}\n`);
	process.exit(2);
}

function token(): string {
	const direct = process.env.GEXDECK_TOKEN?.trim();
	if (direct) return direct;
	const file = process.env.GEXDECK_TOKEN_FILE?.trim();
	if (!file) fail('set GEXDECK_TOKEN or GEXDECK_TOKEN_FILE (a token with the mcp scope)');
	try {
		const first = readFileSync(file, 'utf8').split(/\r?\n/)[0].trim();
		if (!first) fail(`${file} is empty`);
		return first;
	} catch (err) {
		fail(`cannot read GEXDECK_TOKEN_FILE: ${(err as Error).message}`);
	}
}

function endpoint(): URL {
	const raw =
		process.env.GEXDECK_MCP_URL?.trim() ||
		`http://127.0.0.1:${process.env.PORT?.trim() || '3000'}/mcp`;
	try {
		return new URL(raw);
	} catch {
		fail(`GEXDECK_MCP_URL is not a URL: ${raw}`);
	}
}

async function main(): Promise<void> {
	const http = new StreamableHTTPClientTransport(endpoint(), {
		requestInit: { headers: { authorization: `Bearer ${token()}` } }
	});
	const stdio = new StdioServerTransport();
	const reply = (m: JSONRPCMessage, err: unknown) => {
		// A request the dashboard could not take (down, 401, 429) gets its error as the answer.
		if ('id' in m && 'method' in m) {
			void stdio.send({
				jsonrpc: '2.0',
				id: m.id,
				error: { code: -32000, message: `gexdeck dashboard: ${(err as Error).message}` }
			});
		}
	};
	stdio.onmessage = (m) => void http.send(m).catch((err: unknown) => reply(m, err));
	http.onmessage = (m) => void stdio.send(m);
	http.onerror = (err) => process.stderr.write(`gexdeck mcp: ${err.message}\n`);
	stdio.onclose = () => {
		void http
			.terminateSession()
			.catch(() => undefined)
			.finally(() => process.exit(0));
	};
	await http.start();
	await stdio.start();
	process.stdin.on('end', () => void stdio.close());
}

void main();
