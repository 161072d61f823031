/**
 * The embedded service's negotiate checks Host over real sockets: a DNS-rebinding page (a name it
 * controls resolving to 127.0.0.1) cannot negotiate with a known key and take the account's
 * stream slot; loopback Hosts still negotiate.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, quantKey, startHubService, type HubService } from './service-support';

let service: HubService;
beforeAll(async () => {
	service = await startHubService({ tickers: ['SPX'] });
}, 60_000);
afterAll(() => service?.close());

it('negotiate under a foreign Host name is 421 and touches no slot; loopback negotiates', async () => {
	const root = service.service.rootUrl;
	const port = new URL(root).port;
	const url = `${root}/v2/negotiate`;
	for (const host of [`evil.example:${port}`, `localhost.evil.example:${port}`]) {
		const refused = await call(url, { key: quantKey(), method: 'GET', headers: { host } });
		expect(refused.status, host).toBe(421);
	}
	for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
		const ok = await call(url, { key: quantKey(), method: 'GET', headers: { host } });
		expect(ok.status, host).toBe(200);
	}
});
