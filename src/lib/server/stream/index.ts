/**
 * Server half of live streaming: the relay that holds the account's WebSocket slot and the
 * `/stream` endpoint viewers connect to. Mount with:
 *
 *   const relay = new StreamRelay({ baseUrl, key, userAgent });
 *   attachStreamEndpoint(httpServer, relay, (req) => sessionValid(cookieOf(req, SESSION_COOKIE)));
 */
export {
	StreamRelay,
	type RelayCounters,
	type RelayViewer,
	type StreamRelayOptions
} from './relay';
export {
	attachStreamEndpoint,
	cookieOf,
	type StreamAuthorizer,
	type StreamEndpoint,
	type StreamEndpointOptions
} from './endpoint';
export { SubscriptionBook, membershipKey, type UnionPlan, type AddResult } from './book';
export { Negotiator, NegotiationError, type NegotiatorOptions } from './negotiator';
export { DEFAULT_VIEWER_HIGH_WATER, type ViewerSocket } from './viewer';
