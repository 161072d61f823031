/**
 * Writing responses. JSON bodies go out with an exact Content-Length and no chunking; error
 * bodies are always `{"error": "..."}` as the upstream service answers them.
 */
import type { ServerResponse } from 'node:http';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Send bytes that already are a JSON document (the market's precomputed payloads). */
export function sendJsonBytes(
	res: ServerResponse,
	status: number,
	body: Buffer,
	headers?: Record<string, string>
): void {
	res.writeHead(status, {
		'Content-Type': JSON_TYPE,
		'Content-Length': body.length,
		...headers
	});
	res.end(body);
}

export function sendJson(
	res: ServerResponse,
	status: number,
	value: unknown,
	headers?: Record<string, string>
): void {
	sendJsonBytes(res, status, Buffer.from(JSON.stringify(value)), headers);
}

/** An HTTP error with the upstream's body shape. */
export class HttpError extends Error {
	constructor(
		readonly status: number,
		message: string,
		readonly headers?: Record<string, string>
	) {
		super(message);
	}
}

export function sendError(
	res: ServerResponse,
	status: number,
	message: string,
	headers?: Record<string, string>
): void {
	sendJson(res, status, { error: message }, headers);
}

/** The exact 429 body of the upstream service. */
export const RATE_LIMIT_MESSAGE = 'Rate limit exceeded.';
