/**
 * GET /healthz: the process is up and answering (liveness). Public (see requestGate.ts) and
 * saying nothing else.
 */
import { json } from '@sveltejs/kit';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = () =>
	json({ status: 'ok' }, { headers: { 'cache-control': 'no-store' } });
