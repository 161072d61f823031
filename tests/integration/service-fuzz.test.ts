/**
 * Fuzzing with fast-check over arbitrary byte strings:
 *  - the embedded service's request handler (path + query resolution, access, validation) with
 *    arbitrary request targets, methods and headers: it answers every request, never throws,
 *    never answers 500;
 *  - the frame decoders past their envelope checks: arbitrary bytes zstd-compressed inside a
 *    valid Any of every type reach the protobuf and JSON decoders, and only ever give a counted
 *    decode failure (relay frame -> Any -> zstd -> message, the worker's path), and arbitrary
 *    hub text frames never throw out of the pubsub parser.
 * Plain random bytes into the decoders are covered in src/lib/wire/wire.test.ts and
 * src/lib/stream/{decode,relayFrame}.test.ts.
 */
import { compress } from '@bokuweb/zstd-wasm';
import fc from 'fast-check';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseServerMessage } from '../../src/lib/contract/pubsub';
import { decodeRelayMessage } from '../../src/lib/stream/transport/relayDecode';
import { encodeRelayFrame } from '../../src/lib/relay/relayFrame';
import { initWireEncoder, wrapAny } from '../../src/lib/wire/encode';
import { TYPE_URLS } from '../../src/lib/wire/typeUrls';
import { demoAccounts } from '../../src/service/accounts/demo';
import type { RunningService } from '../../src/service/server';
import { ManualMarket } from './service-hubs.market';
import { startHubService, type HubService } from './service-support';

/** The manual market with a (tiny) stored day, so history and EOD requests get real answers. */
class DayMarket extends ManualMarket {
	override history(): Promise<Buffer> {
		return Promise.resolve(Buffer.from('[]'));
	}
}

let service: RunningService;
let t: HubService;
const keys = demoAccounts().accounts.flatMap((a) => a.keys.map((k) => k.key));

beforeAll(async () => {
	const market = new DayMarket();
	market.tick();
	t = await startHubService({ market });
	({ service } = t);
	await initWireEncoder();
});

afterAll(async () => {
	await t?.close();
});

/** Runs the service's request listener on an in-memory request; resolves with the status. */
function handle(method: string, url: string, headers: Record<string, string>): Promise<number> {
	const req = new IncomingMessage(new Socket());
	req.method = method;
	req.url = url;
	req.headers = headers;
	const res = new ServerResponse(req);
	const listener = service.server.listeners('request')[0] as (
		q: IncomingMessage,
		s: ServerResponse
	) => void;
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`no answer to ${method} ${url}`)), 5_000);
		const done = () => {
			clearTimeout(timer);
			resolve(res.statusCode);
		};
		const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
		res.end = ((...a: unknown[]) => {
			const r = end(...a);
			done();
			return r;
		}) as typeof res.end;
		listener(req, res);
		// A body-reading handler (negotiation) waits for the request's end.
		req.push(null);
	});
}

/** Byte strings as Node's HTTP parser hands them over (one char per byte). */
const bytes = (max: number) =>
	fc.uint8Array({ maxLength: max }).map((b) => Buffer.from(b).toString('latin1'));
/** A value for a route parameter: a valid one, a near miss, or arbitrary bytes. */
const param = (...valid: string[]) =>
	fc.oneof(
		{ weight: 6, arbitrary: fc.constantFrom(...valid) },
		{ weight: 1, arbitrary: fc.constantFrom('%', '%00', '%E0%A4%A', '..', '', '^SPX', '%5ESPX') },
		{ weight: 2, arbitrary: bytes(24) }
	);
const ticker = param('SPX', 'UNG', 'ES_SPX', 'spx', 'AAPL');
const category = param('gex_full', 'full', 'gex_zero', 'delta_zero', 'orderflow', 'volume_one');
/** Request targets shaped like every documented route, each part possibly hostile. */
const routeTarget = fc.oneof(
	fc
		.tuple(
			ticker,
			param('classic', 'state', 'orderflow'),
			category,
			param('', 'majors', 'maxchange')
		)
		.map(([t, p, c, tail]) => `/v2/${t}/${p}/${c}${tail ? `/${tail}` : ''}`),
	fc
		.tuple(
			ticker,
			param('classic', 'state'),
			category,
			param('2026-11-17', '2026-02-30', '1999-01-01')
		)
		.map(([t, p, c, d]) => `/v2/hist/${t}/${p}/${c}/${d}`),
	ticker.map((t) => `/v2/hist/eod/${t}`),
	fc.tuple(ticker, param('gex_oi', 'iv_mid', 'max_pain')).map(([t, m]) => `/v2/research/${t}/${m}`),
	ticker.map((t) => `/v2/options/${t}/expiries`),
	param(
		'v2/negotiate',
		'v2/whoami',
		'v2/tickers',
		'tickers/quant',
		'classic/categories',
		'v2/futures/conversion'
	).map((p) => `/${p}`),
	param('v2_classic', 'classic', 'nohub').map((h) => `/client/hubs/${h}`),
	bytes(40).map((x) => `/download/hist/${x}`)
);
const query = fc.oneof(
	fc.constant(''),
	bytes(40).map((q) => `?${q}`),
	fc.constantFrom('?noredirect=true', '?format=json&view=skew', '?ticker=SPX&future=ES', '?%=%')
);
const target = fc.oneof(
	{ weight: 1, arbitrary: bytes(120) },
	{ weight: 4, arbitrary: fc.tuple(routeTarget, query).map(([p, q]) => p + q) }
);
const method = fc.oneof(
	{ weight: 6, arbitrary: fc.constant('GET') },
	{ weight: 3, arbitrary: fc.constantFrom('POST', 'PATCH', 'PUT', 'DELETE', 'HEAD', 'OPTIONS') },
	{ weight: 1, arbitrary: bytes(8) }
);
const headers = fc.record(
	{
		'user-agent': fc.oneof(
			{ weight: 4, arbitrary: fc.constant('fuzz/1.0') },
			{ weight: 1, arbitrary: bytes(30) }
		),
		authorization: fc.oneof(
			fc.constantFrom(...keys).map((k) => `Bearer ${k}`),
			bytes(60),
			fc.constantFrom(...keys).map((k) => `Basic ${k}`),
			fc.constant(`Bearer gexbot_custom_${'x'.repeat(43)}`)
		),
		accept: fc.oneof(fc.constant('application/json'), bytes(30)),
		host: fc.oneof(fc.constant('127.0.0.1'), bytes(30))
	},
	{ requiredKeys: ['authorization'] }
);

describe('fuzz: the service request handler', () => {
	it('answers arbitrary targets, methods and headers without a throw or a 500', async () => {
		const seen = new Map<number, number>();
		const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
		try {
			await fc.assert(
				fc.asyncProperty(method, target, headers, async (m, url, h) => {
					const status = await handle(m, url, h);
					seen.set(status, (seen.get(status) ?? 0) + 1);
					expect(status).toBeGreaterThanOrEqual(200);
					expect(status, `${m} ${JSON.stringify(url)}`).not.toBe(500);
				}),
				{ numRuns: 3000 }
			);
			expect(errors).not.toHaveBeenCalled();
			// The generators reach past the router: real answers and every kind of refusal.
			for (const status of [200, 400, 401, 403, 404, 405])
				expect(seen.get(status)).toBeGreaterThan(0);
		} finally {
			errors.mockRestore();
		}
	}, 120_000);
});

describe('fuzz: frame decoders past the envelope', () => {
	it('arbitrary compressed messages of every type only give a counted decode failure', () => {
		const typeUrl = fc.constantFrom(...Object.values(TYPE_URLS));
		fc.assert(
			fc.property(typeUrl, fc.uint8Array({ maxLength: 400 }), (url, inner) => {
				const any = wrapAny(url, compress(inner, 1));
				const out = decodeRelayMessage(encodeRelayFrame('SPX_classic_gex_full', any));
				if (!out.ok) expect(['corrupt', 'unknown']).toContain(out.reason);
			}),
			{ numRuns: 2000 }
		);
	});

	it('arbitrary hub text frames never throw out of the pubsub parser', () => {
		fc.assert(
			fc.property(
				fc.oneof(
					bytes(200),
					fc.json(),
					fc
						.record({
							type: fc.constantFrom('message', 'system', 'ack', 'pong', 'x'),
							from: fc.constantFrom('group', 'server', 1),
							group: fc.oneof(fc.string(), fc.integer()),
							dataType: fc.constantFrom('protobuf', 'binary', 'json', 'text', null),
							data: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
							event: fc.constantFrom('connected', 'disconnected', 'x'),
							ackId: fc.oneof(fc.integer(), fc.double(), fc.string()),
							sequenceId: fc.oneof(fc.integer(), fc.double())
						})
						.map((o) => JSON.stringify(o))
				),
				(text) => {
					const parsed = parseServerMessage(text);
					expect(typeof parsed.ok).toBe('boolean');
				}
			),
			{ numRuns: 3000 }
		);
	});
});
