/**
 * The service's end-of-day report (`GET /v2/hist/eod/{ticker}`, a zip of the newest completed
 * session's 15 categories as gzip JSON arrays) for the dashboard: downloaded through the server
 * as a stream (the browser never holds the key, the server never buffers the file), or opened:
 * its members are filed in the recorder's format, so the heatmap and replay read that day like a
 * recorded one.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { gunzipSync } from 'node:zlib';
import { unzipSync } from 'fflate';
import { feedOfRoute, feedStream } from '../../contract/feeds';
import { isRecordedDay, type SessionRecorder } from './sessionRecorder';
import { snapshotRecords } from './snapshotRecords';

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

async function readAll(res: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const c of res) chunks.push(c as Buffer);
	return Buffer.concat(chunks);
}

export class EodError extends Error {
	constructor(
		readonly status: number,
		message: string
	) {
		super(message);
	}
}

export interface OpenedReport {
	day: string;
	/** Streams filed (`classic_gex_full`, ...), with their calculation counts. */
	streams: { stream: string; records: number }[];
}

/** `SPX/classic/gex_full/2026-11-18_....json.gz`: the feed's route, then its day. */
const MEMBER =
	/^([A-Z0-9_]+\/(?:classic|state|orderflow)\/[a-z0-9_]+)\/(\d{4}-\d{2}-\d{2})_[^/]+\.json\.gz$/;

/** Downloads the report and files every member under its day; members already filed stay. */
export async function openEodReport(
	target: EodTarget,
	recorder: SessionRecorder,
	ticker: string
): Promise<OpenedReport> {
	const res = await eodDownload(target, ticker);
	const body = await readAll(res);
	if (res.statusCode !== 200) {
		let message = `the service answered ${res.statusCode}`;
		try {
			message = (JSON.parse(body.toString('utf8')) as { error?: string }).error ?? message;
		} catch {
			// not JSON
		}
		throw new EodError(res.statusCode ?? 502, message);
	}
	let members: Record<string, Uint8Array>;
	try {
		members = unzipSync(body);
	} catch (e) {
		throw new EodError(502, `The EOD report is not a zip: ${(e as Error).message}`);
	}
	let day: string | undefined;
	const streams: OpenedReport['streams'] = [];
	for (const [name, data] of Object.entries(members)) {
		const m = MEMBER.exec(name);
		const feed = m ? feedOfRoute(m[1]) : undefined;
		if (!m || !feed || feed.ticker !== ticker || !isRecordedDay(m[2])) continue;
		day = m[2];
		const stream = feedStream(feed);
		const existing = recorder.count(day, ticker, stream);
		if (existing > 0) {
			streams.push({ stream, records: existing });
			continue;
		}
		let records;
		try {
			records = await snapshotRecords(gunzipSync(data).toString('utf8'));
		} catch (e) {
			throw new EodError(502, `The report's ${stream} is not a JSON list: ${(e as Error).message}`);
		}
		recorder.import(day, ticker, stream, records);
		streams.push({ stream, records: records.length });
	}
	if (!day) throw new EodError(502, 'The EOD report holds no member for this ticker.');
	return { day, streams: streams.sort((a, b) => a.stream.localeCompare(b.stream)) };
}
