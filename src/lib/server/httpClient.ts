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

/** GET `url`; redirects are returned, not followed (a redirect could lead off the allowlist). */
export function httpGet(
	url: URL,
	headers: Record<string, string>,
	timeoutMs: number
): Promise<UpstreamResponse> {
	const secure = url.protocol === 'https:';
	const lib = secure ? https : http;
	return new Promise((resolve, reject) => {
		const req = lib.request(
			url,
			{ method: 'GET', headers, agent: secure ? httpsAgent : httpAgent, timeout: timeoutMs },
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => chunks.push(c));
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
		req.on('error', (err) =>
			reject(
				err instanceof UpstreamUnreachableError ? err : new UpstreamUnreachableError(err.message)
			)
		);
		req.end();
	});
}
