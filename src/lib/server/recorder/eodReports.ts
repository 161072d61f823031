/**
 * The service's end-of-day report (`GET /v2/hist/eod/{ticker}`, a zip of the newest completed
 * session's 15 categories as gzip JSON arrays) for the dashboard: downloaded through the server
 * as a stream (the browser never holds the key, the server never buffers the file), or opened:
 * its members are filed in the recorder's format, so the heatmap and replay read that day like a
 * recorded one.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { DEFAULT_IMPORT_MAX_BYTES } from './historyImport';
import { ImportQueueFullError, importQueue } from './importQueue';
import { EodError, ReportMembers, type OpenedReport } from './reportMembers';
import type { SessionRecorder } from './sessionRecorder';
import { formatBytes, loopTurns } from './snapshotRecords';

/** Bytes of the zip handed to the unzipper at a time. */
const SLICE_BYTES = 16 * 1024;

export interface EodTarget {
	baseUrl: string;
	key: string | undefined;
	userAgent: string;
}

/** Starts the upstream download and resolves with its response stream (status and headers). */
export function eodDownload(target: EodTarget, ticker: string): Promise<IncomingMessage> {
	const url = new URL(`${target.baseUrl}/hist/eod/${encodeURIComponent(ticker)}`);
	const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
	const headers: Record<string, string> = {
		'user-agent': target.userAgent,
		accept: 'application/zip, application/json'
	};
	if (target.key) headers.authorization = `Bearer ${target.key}`;
	return new Promise((resolve, reject) => {
		const req = request(url, { method: 'GET', headers, timeout: 300_000 }, resolve);
		req.on('timeout', () => req.destroy(new Error('the EOD report download timed out')));
		req.on('error', reject);
		req.end();
	});
}

/** The start of an error answer (at most 64 KB: an error body is a sentence of JSON). */
async function readHead(res: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	let length = 0;
	for await (const c of res) {
		chunks.push(c as Buffer);
		length += (c as Buffer).length;
		if (length >= 64 * 1024) break;
	}
	return Buffer.concat(chunks).toString('utf8');
}

export { EodError, type OpenedReport } from './reportMembers';

/**
 * Downloads the report and files every member under its day; members already filed stay. The
 * zip is read as it arrives (fflate's streaming Unzip and Gunzip), each member filed aside and
 * moved into place once complete (DayImport), so memory holds one piece of the download, never
 * the file: a report over `maxBytes`, or a member whose JSON is, fails with nothing of the
 * unfinished member kept. Runs in the dashboard's import queue, one import at a time.
 */
export function openEodReport(
	target: EodTarget,
	recorder: SessionRecorder,
	ticker: string,
	maxBytes = DEFAULT_IMPORT_MAX_BYTES
): Promise<OpenedReport> {
	return importQueue()
		.run(`eod/${ticker}`, () => openNow(target, recorder, ticker, maxBytes))
		.catch((e: unknown) => {
			if (e instanceof ImportQueueFullError)
				throw new EodError(503, `This server is busy: ${e.message}`);
			throw e;
		});
}

async function openNow(
	target: EodTarget,
	recorder: SessionRecorder,
	ticker: string,
	maxBytes: number
): Promise<OpenedReport> {
	const res = await eodDownload(target, ticker);
	const members = new ReportMembers(recorder, ticker, maxBytes);
	try {
		if (res.statusCode !== 200) {
			let message = `the service answered ${res.statusCode}`;
			try {
				message = (JSON.parse(await readHead(res)) as { error?: string }).error ?? message;
			} catch {
				// not JSON
			}
			throw new EodError(res.statusCode ?? 502, message);
		}
		let received = 0;
		const turn = loopTurns();
		for await (const chunk of res) {
			received += (chunk as Buffer).length;
			if (received > maxBytes) {
				throw new EodError(
					413,
					`The EOD report is larger than the ${formatBytes(maxBytes)} import limit.`
				);
			}
			// In slices, each a few hundred records at most, with turns of the event loop between.
			for (let at = 0; at < (chunk as Buffer).length; at += SLICE_BYTES) {
				members.push((chunk as Buffer).subarray(at, at + SLICE_BYTES), false);
				await turn();
			}
		}
		if (!res.complete) throw new EodError(502, 'The EOD report download was cut short.');
		members.push(new Uint8Array(0), true);
		return members.opened();
	} finally {
		members.abandon();
		res.destroy();
	}
}
