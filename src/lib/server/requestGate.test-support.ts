/**
 * The requests both request-gate suites ask about (requestGate.test.ts and its edges).
 */
import type { GatePolicy, GateRequest } from './requestGate';

/** No password set. */
export const open: GatePolicy = { passwordRequired: false };

/** A GET of / from this machine to the dashboard on 127.0.0.1:3000, with `extra` over it. */
export const local = (extra: Partial<GateRequest> = {}): GateRequest => ({
	method: 'GET',
	pathname: '/',
	host: '127.0.0.1:3000',
	localAddress: '127.0.0.1',
	localPort: 3000,
	clientAddress: '127.0.0.1',
	...extra
});
