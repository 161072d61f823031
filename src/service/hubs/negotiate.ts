/**
 * `/v2/negotiate`: POST (v2 flow, server-side memberships), GET (legacy flow, client-side
 * joinGroup of prefixed groups) and PATCH (replace the slot's memberships on live connections).
 *
 * Everything is validated before the slot is touched: a refused negotiation never kicks the
 * connections of a working client.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { canAccess, type KeyState } from '../../lib/contract/access';
import { parseBearer, slotOf, type SlotKind } from '../../lib/contract/keys';
import type { AccountRegistry, Principal } from '../accounts/registry';
import { requireUserAgent } from '../http/requestAccess';
import { requestOrigin, requireOwnHost } from '../http/requestOrigin';
import { HttpError, sendJson } from '../http/respond';
import { fail } from '../http/router';
import type { GroupPlanner } from './planner';
import type { Flow } from './connection';
import { countMemberships, type Memberships, type SlotManager, type SlotSession } from './slots';
import type { AccessTokens } from './tokens';

export const NEGOTIATE_PATH = '/v2/negotiate';

export interface NegotiateDeps {
	accounts: AccountRegistry;
	slots: SlotManager;
	tokens: AccessTokens;
	planner: GroupPlanner;
	/** Origin the URLs point at (`http://host:port` or `ws://...`); default: the request's Host. */
	publicOrigin?: string;
}

const MAX_BODY_BYTES = 256 * 1024;

/** Answers one /v2/negotiate request (any method). Never throws. */
export async function handleNegotiate(
	req: IncomingMessage,
	res: ServerResponse,
	deps: NegotiateDeps
): Promise<void> {
	try {
		requireUserAgent(req);
		// The hub URLs are built from the Host: a bad one is refused before the slot is renewed.
		requestOrigin(req, deps.publicOrigin);
		requireOwnHost(req, deps.publicOrigin);
		const method = req.method ?? 'GET';
		if (method !== 'GET' && method !== 'POST' && method !== 'PATCH') {
			throw new HttpError(405, `Method ${method} is not allowed on /v2/negotiate.`, {
				Allow: 'GET, POST, PATCH'
			});
		}
		const principal = authorizeQuant(req, deps.accounts);
		const slotKind = slotOf(principal.keyKind) as SlotKind;
		if (method === 'GET') return negotiateLegacy(req, res, deps, principal, slotKind);
		const body = await readJson(req);
		if (method === 'POST') return negotiateV2(req, res, deps, principal, slotKind, body);
		return patchMemberships(res, deps, principal, slotKind, body);
	} catch (err) {
		// The REST layer's answer to a failed request: its HttpError, else a logged 500.
		fail(res, err);
	}
}

/**
 * The Quant-tier rule and status codes of the REST layer (contract canAccess). Not the REST
 * layer's authorize(): that one gates on the `api_rest_access` flag, while negotiation opens
 * the stream and is gated on `api_websocket_access`.
 */
function authorizeQuant(req: IncomingMessage, accounts: AccountRegistry): Principal {
	const bearer = parseBearer(req.headers.authorization);
	let state: KeyState;
	let principal: Principal | undefined;
	if (!bearer.ok) state = bearer.reason;
	else {
		const check = accounts.check(bearer.key);
		if (check.ok) {
			principal = check.principal;
			state = principal.keyKind;
		} else state = check.reason;
	}
	const decision = canAccess({ access: { kind: 'quant' } }, state, principal?.account);
	if (!decision.ok) throw new HttpError(decision.status, decision.error);
	if (!principal || !slotOf(principal.keyKind)) throw new HttpError(401, 'Invalid API key.');
	if (!principal.account.permissions.includes('api_websocket_access')) {
		throw new HttpError(403, 'WebSocket API access is not enabled for this account.');
	}
	return principal;
}

function negotiateV2(
	req: IncomingMessage,
	res: ServerResponse,
	deps: NegotiateDeps,
	principal: Principal,
	slotKind: SlotKind,
	body: unknown
): void {
	const groups = (body as { groups?: unknown } | null)?.groups;
	const plan = deps.planner.planPost(groups, deps.accounts.groupLimit(principal.account));
	if (!plan.ok) throw new HttpError(plan.status, plan.error);
	const { urls } = openSession(req, deps, principal, slotKind, 'v2', plan.memberships);
	sendJson(res, 200, { websocket_urls: urls }, { 'Cache-Control': 'no-store' });
}

/**
 * A new session on the key's slot (renew closes the slot's open connections) and, for each hub
 * of the flow, its URL with an access token bound to that session.
 */
function openSession(
	req: IncomingMessage,
	deps: NegotiateDeps,
	principal: Principal,
	slotKind: SlotKind,
	flow: Flow,
	memberships?: Memberships
): { session: SlotSession; urls: Record<string, string> } {
	const slot = deps.slots.get(principal.account._id, slotKind);
	const session = deps.slots.renew(slot, flow, memberships);
	const urls: Record<string, string> = {};
	for (const hub of flow === 'v2' ? deps.planner.v2Hubs : deps.planner.legacyHubs) {
		const token = deps.tokens.issue({
			account: slot.account,
			slot: slotKind,
			hub,
			session: session.id
		});
		urls[hub] = hubUrl(req, deps.publicOrigin, hub, token);
	}
	return { session, urls };
}

function negotiateLegacy(
	req: IncomingMessage,
	res: ServerResponse,
	deps: NegotiateDeps,
	principal: Principal,
	slotKind: SlotKind
): void {
	const { session, urls } = openSession(req, deps, principal, slotKind, 'legacy');
	sendJson(
		res,
		200,
		{ websocket_urls: urls, prefix: session.prefix },
		{ 'Cache-Control': 'no-store' }
	);
}

function patchMemberships(
	res: ServerResponse,
	deps: NegotiateDeps,
	principal: Principal,
	slotKind: SlotKind,
	body: unknown
): void {
	const slot = deps.slots.find(principal.account._id, slotKind);
	if (!slot?.session) {
		throw new HttpError(409, 'No negotiated WebSocket session: POST /v2/negotiate first.');
	}
	if (slot.session.flow !== 'v2') {
		throw new HttpError(
			409,
			'The session was negotiated with the legacy GET flow: change groups with joinGroup/leaveGroup, or negotiate with POST.'
		);
	}
	const items = (body as { groups?: unknown } | null)?.groups;
	const plan = deps.planner.planPatch(
		items,
		slot.liveHubs(),
		deps.accounts.groupLimit(principal.account)
	);
	if (!plan.ok) throw new HttpError(plan.status, plan.error);
	slot.memberships = plan.memberships;
	const hubs: Record<string, number> = {};
	for (const [hub, groups] of plan.memberships) if (groups.size > 0) hubs[hub] = groups.size;
	sendJson(
		res,
		200,
		{ updated_groups: countMemberships(plan.memberships), hubs },
		{ 'Cache-Control': 'no-store' }
	);
}

/** `ws://host/client/hubs/<hub>?access_token=...` (wss when the origin is https/wss). */
export function hubUrl(
	req: IncomingMessage,
	publicOrigin: string | undefined,
	hub: string,
	token: string
): string {
	let origin = requestOrigin(req, publicOrigin);
	origin = origin.replace(/\/+$/, '').replace(/^http(s?):\/\//, 'ws$1://');
	return `${origin}/client/hubs/${hub}?access_token=${encodeURIComponent(token)}`;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req) {
		size += (chunk as Buffer).length;
		if (size > MAX_BODY_BYTES) throw new HttpError(413, 'Request body is too large.');
		chunks.push(chunk as Buffer);
	}
	const text = Buffer.concat(chunks).toString('utf8');
	if (text.trim() === '') throw new HttpError(400, 'Request body must be JSON: {"groups": [...]}.');
	try {
		return JSON.parse(text) as unknown;
	} catch {
		throw new HttpError(400, 'Request body is not valid JSON.');
	}
}
