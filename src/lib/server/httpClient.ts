/**
 * A minimal keep-alive HTTP(S) GET for upstream calls. node:http with a pooled agent costs a
 * fraction of what fetch() does per request, which matters for the proxy's < 1 ms budget.
 */
import http from 'node:http';
import https from 'node:https';

export interface UpstreamResponse {
	status: number;
	contentType: string | undefined;
	/** Other headers the proxy may pass on (location, content-disposition, cache-control). */
	headers: Record<string, string>;
	body: Buffer;
}

const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64 });

const PASSED_HEADERS = ['location', 'content-disposition', 'cache-control', 'retry-after'];

export class UpstreamUnreachableError extends Error {}

/** An answer longer than the caller's cap: refused before it is all held in memory. */
export class UpstreamTooLargeError extends UpstreamUnreachableError {}

/**
 * The most a buffered answer may hold (the proxy's answers are JSON of a few MB at most; a day
 * of history is downloaded as a stream by openGet instead).
 */
export const MAX_BUFFERED_BYTES = 64 * 1024 ** 2;

/**
 * GET `url`; redirects are returned, not followed (a redirect could lead off the allowlist). An
 * answer over `maxBytes` is cut and rejected with UpstreamTooLargeError.
 */
export function httpGet(
	url: URL,
	headers: Record<string, string>,
	timeoutMs: number,
	maxBytes = MAX_BUFFERED_BYTES,
	retryStale = true
): Promise<UpstreamResponse> {
	const secure = url.protocol === 'https:';
	const lib = secure ? https : http;
	return new Promise((resolve, reject) => {
		let answered = false;
		const req = lib.request(
			url,
			{ method: 'GET', headers, agent: secure ? httpsAgent : httpAgent, timeout: timeoutMs },
			(res) => {
				answered = true;
				const chunks: Buffer[] = [];
				let length = 0;
				res.on('data', (c: Buffer) => {
					length += c.length;
					if (length > maxBytes) {
						req.destroy(
							new UpstreamTooLargeError(`the upstream answer is larger than ${maxBytes} bytes`)
						);
						return;
					}
					chunks.push(c);
				});
				res.on('error', (err) => reject(new UpstreamUnreachableError(err.message)));
				res.on('end', () => {
					// Done: the socket may go back to the pool, where this request's deadline must
					// not reach it.
					clearTimeout(deadline);
					const passed: Record<string, string> = {};
					for (const name of PASSED_HEADERS) {
						const v = res.headers[name];
						if (typeof v === 'string') passed[name] = v;
					}
					resolve({
						status: res.statusCode ?? 502,
						contentType: res.headers['content-type'],
						headers: passed,
						body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)
					});
				});
			}
		);
		// `timeout` above only notices silence; an answer trickling a byte a second never goes
		// silent, so the whole exchange has a deadline too.
		const timedOut = () =>
			req.destroy(new UpstreamUnreachableError(`upstream timed out after ${timeoutMs} ms`));
		const deadline = setTimeout(timedOut, timeoutMs);
		req.on('close', () => clearTimeout(deadline));
		req.on('timeout', timedOut);
		req.on('error', (err) => {
			// A pooled keep-alive socket the server closed while it idled fails at once: a GET on
			// it was never answered, so it is sent again, once, on a fresh socket (Node's advice).
			if (
				retryStale &&
				!answered &&
				req.reusedSocket &&
				(err as NodeJS.ErrnoException).code === 'ECONNRESET'
			) {
				resolve(httpGet(url, headers, timeoutMs, maxBytes, false));
				return;
			}
			reject(
				err instanceof UpstreamUnreachableError ? err : new UpstreamUnreachableError(err.message)
			);
		});
		req.end();
	});
}

/**
 * GET `url` as a stream: resolves with the response once its headers are in, for the caller to
 * read at its own pace (a download of any size held a piece at a time). The whole exchange has
 * the `timeoutMs` deadline; a response abandoned by the caller must be destroyed by it.
 */
export function openGet(
	url: URL,
	headers: Record<string, string>,
	timeoutMs: number
): Promise<http.IncomingMessage> {
	const lib = url.protocol === 'https:' ? https : http;
	return new Promise((resolve, reject) => {
		const req = lib.request(url, { method: 'GET', headers, timeout: timeoutMs }, resolve);
		const timedOut = () =>
			req.destroy(new UpstreamUnreachableError(`the download timed out after ${timeoutMs} ms`));
		const deadline = setTimeout(timedOut, timeoutMs);
		req.on('close', () => clearTimeout(deadline));
		req.on('timeout', timedOut);
		req.on('error', (err) =>
			reject(
				err instanceof UpstreamUnreachableError ? err : new UpstreamUnreachableError(err.message)
			)
		);
		req.end();
	});
}
