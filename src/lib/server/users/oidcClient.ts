/**
 * OpenID Connect sign-in's protocol half (openid-client): the authorization code flow with PKCE
 * (S256), a state and a nonce. `beginSignIn` makes the provider's URL and keeps the flow's secrets
 * here, under its state, for ten minutes; the browser carries only the state, in a SameSite=Lax
 * cookie (the provider's redirect back is a cross-site navigation, which a Strict cookie would
 * miss). `finishSignIn` checks that the callback's state is this browser's, exchanges the code
 * with the verifier, and has openid-client verify the ID token (signature, issuer, audience,
 * expiry, nonce). Who the claims are in gexdeck is oidcSignIn.ts's part.
 */
import * as client from 'openid-client';
import type { OidcSettings } from './oidcSettings';

/** The cookie carrying a sign-in's state between the start and the provider's callback. */
export const OIDC_STATE_COOKIE = 'gexdeck_oidc';
export const FLOW_TTL_MS = 10 * 60_000;
/** Sign-ins in flight at most (a flood of starts cannot grow memory without bound). */
const MAX_FLOWS = 1_000;

/** A sign-in refused: `message` is for the page, `reason` for the audit log. */
export class OidcRefusal extends Error {
	constructor(
		message: string,
		readonly reason: string
	) {
		super(message);
	}
}

interface Flow {
	verifier: string;
	nonce: string;
	next: string;
	expires: number;
}

let provider: { settings: OidcSettings; config: client.Configuration } | undefined;
const flows = new Map<string, Flow>();

function loopback(url: URL): boolean {
	return url.protocol === 'http:';
}

/**
 * Read the provider's discovery document now (at start): an issuer that cannot be discovered
 * stops the start with an error naming GEXDECK_OIDC_ISSUER.
 */
export async function startOidc(settings: OidcSettings): Promise<void> {
	let config: client.Configuration;
	try {
		config = await client.discovery(
			settings.issuer,
			settings.clientId,
			undefined,
			client.ClientSecretBasic(settings.clientSecret),
			// http is accepted only for a loopback issuer (oidcSettings.ts refuses any other).
			loopback(settings.issuer) ? { execute: [client.allowInsecureRequests] } : undefined
		);
	} catch (err) {
		throw new Error(
			`GEXDECK_OIDC_ISSUER=${settings.issuer.href}: the provider's discovery document ` +
				`(.well-known/openid-configuration) could not be read: ${(err as Error).message}`,
			{ cause: err }
		);
	}
	provider = { settings, config };
}

export function oidcProviderName(): string | undefined {
	return provider?.settings.name;
}

function need(): { settings: OidcSettings; config: client.Configuration } {
	if (!provider) throw new OidcRefusal('Sign-in with an identity provider is not set up.', 'off');
	return provider;
}

/** A new sign-in: the provider's authorization URL and the state the browser keeps. */
export async function beginSignIn(
	next: string,
	now = Date.now()
): Promise<{ url: URL; state: string }> {
	const { settings, config } = need();
	for (const [state, flow] of flows) if (flow.expires <= now) flows.delete(state);
	while (flows.size >= MAX_FLOWS) flows.delete(flows.keys().next().value!);
	const verifier = client.randomPKCECodeVerifier();
	const state = client.randomState();
	const nonce = client.randomNonce();
	flows.set(state, { verifier, nonce, next, expires: now + FLOW_TTL_MS });
	const url = client.buildAuthorizationUrl(config, {
		redirect_uri: settings.redirectUri,
		scope: 'openid profile email',
		code_challenge: await client.calculatePKCECodeChallenge(verifier),
		code_challenge_method: 'S256',
		state,
		nonce
	});
	return { url, state };
}

/** What a verified sign-in says: the ID token's claims (and the user info's), and where to go. */
export interface VerifiedSignIn {
	subject: string;
	claims: Record<string, unknown>;
	next: string;
}

const RETRY = 'Start the sign-in again from the login page.';

/**
 * Verify the provider's callback (`search`: its query) for the browser whose state cookie is
 * `cookieState`. Every failure is an OidcRefusal; the flow is used up either way.
 */
export async function finishSignIn(
	search: string,
	cookieState: string | undefined,
	now = Date.now()
): Promise<VerifiedSignIn> {
	const { settings, config } = need();
	const params = new URLSearchParams(search);
	const state = params.get('state') ?? '';
	const flow = flows.get(state);
	flows.delete(state);
	const providerError = params.get('error');
	if (providerError) {
		const text = (params.get('error_description') ?? providerError).slice(0, 200);
		throw new OidcRefusal(`${settings.name} did not sign you in: ${text}. ${RETRY}`, text);
	}
	if (!cookieState || cookieState !== state || !flow || flow.expires <= now) {
		throw new OidcRefusal(
			`This sign-in could not be matched to one started in this browser (or it took over ` +
				`${FLOW_TTL_MS / 60_000} minutes). ${RETRY}`,
			'state mismatch'
		);
	}
	// The URL the provider redirected to, rebuilt from ORIGIN (never from the request's Host).
	const current = new URL(settings.redirectUri);
	current.search = search;
	let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
	try {
		tokens = await client.authorizationCodeGrant(config, current, {
			pkceCodeVerifier: flow.verifier,
			expectedState: state,
			expectedNonce: flow.nonce,
			idTokenExpected: true
		});
	} catch (err) {
		// openid-client's message is generic; its cause (oauth4webapi's) names the failed check.
		const cause = (err as Error).cause;
		const text = cause instanceof Error ? cause.message : (err as Error).message;
		throw new OidcRefusal(
			`${settings.name}'s answer did not verify (${text.slice(0, 200)}). ${RETRY}`,
			text.slice(0, 200)
		);
	}
	const idClaims = tokens.claims();
	if (!idClaims)
		throw new OidcRefusal(`${settings.name} sent no ID token. ${RETRY}`, 'no id token');
	let claims: Record<string, unknown> = { ...idClaims };
	// Claims the ID token leaves out (many providers put groups only in the user info).
	try {
		const info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
		claims = { ...info, ...claims };
	} catch {
		// No user info endpoint, or it failed: the ID token's claims decide alone.
	}
	return { subject: `${idClaims.iss} ${idClaims.sub}`, claims, next: flow.next };
}
