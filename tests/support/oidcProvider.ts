/**
 * A real OpenID Connect provider for the tests (the `oidc-provider` package) on a loopback port:
 * one confidential client (the dashboard, with its redirect URI), accounts whose `groups` claim
 * the tests set and change, and the package's development sign-in form (any account name the
 * tests made, any password). Consent is given at once, as for a team's own first-party client.
 *
 * Its issuer is `http://localhost:<port>` while the dashboard is `http://127.0.0.1:<port>`: two
 * sites, so a browser treats the redirect back as the cross-site navigation it is in production.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';

export interface TestAccount {
	/** The role claim's values (GEXDECK_OIDC_ROLE_CLAIM=groups). */
	groups: string[];
	email?: string;
}

export interface TestOidcProvider {
	issuer: string;
	clientId: string;
	clientSecret: string;
	/** Account id (what the sign-in form's login field takes) -> its claims; change at will. */
	accounts: Map<string, TestAccount>;
	/** The dashboard's OIDC variables for this provider (ORIGIN is the caller's). */
	env: Record<string, string>;
	close(): Promise<void>;
}

export const TEST_ROLES = 'desk-admins=admin,desk-traders=trader,desk-viewers=viewer';

/** Starts the provider for a dashboard whose callback is `redirectUri`. */
export async function startOidcProvider(redirectUri: string): Promise<TestOidcProvider> {
	const accounts = new Map<string, TestAccount>();
	const clientId = 'gexdeck';
	const clientSecret = 'test client secret that is long enough';
	const server: Server = createServer();
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	const issuer = `http://localhost:${(server.address() as AddressInfo).port}`;
	const provider = new Provider(issuer, {
		clients: [
			{
				client_id: clientId,
				client_secret: clientSecret,
				redirect_uris: [redirectUri],
				grant_types: ['authorization_code'],
				response_types: ['code'],
				token_endpoint_auth_method: 'client_secret_basic'
			}
		],
		pkce: { required: () => true },
		cookies: { keys: ['oidc test cookie key'] },
		claims: {
			openid: ['sub'],
			profile: ['preferred_username', 'name', 'groups'],
			email: ['email']
		},
		// The claims of the granted scopes go into the ID token too (gexdeck reads both).
		conformIdTokenClaims: false,
		async findAccount(_ctx: KoaContextWithOIDC, id: string) {
			const account = accounts.get(id);
			if (!account) return undefined;
			return {
				accountId: id,
				async claims() {
					// Read at each token: a changed account shows at the next sign-in.
					const now = accounts.get(id) ?? account;
					return {
						sub: id,
						preferred_username: id,
						name: id,
						groups: now.groups,
						...(now.email ? { email: now.email } : {})
					};
				}
			};
		},
		async loadExistingGrant(ctx: KoaContextWithOIDC) {
			const oidc = ctx.oidc;
			const grantId =
				oidc.result?.consent?.grantId ?? oidc.session!.grantIdFor(oidc.client!.clientId);
			if (grantId) return oidc.provider.Grant.find(grantId);
			const grant = new oidc.provider.Grant({
				clientId: oidc.client!.clientId,
				accountId: oidc.session!.accountId
			});
			grant.addOIDCScope('openid profile email');
			await grant.save();
			return grant;
		}
	});
	const handle = provider.callback();
	server.on('request', (req, res) => void handle(req, res));
	return {
		issuer,
		clientId,
		clientSecret,
		accounts,
		env: {
			GEXDECK_OIDC_ISSUER: issuer,
			GEXDECK_OIDC_CLIENT_ID: clientId,
			GEXDECK_OIDC_CLIENT_SECRET: clientSecret,
			GEXDECK_OIDC_ROLE_CLAIM: 'groups',
			GEXDECK_OIDC_ROLES: TEST_ROLES,
			GEXDECK_OIDC_NAME: 'Test IdP'
		},
		close: () =>
			new Promise<void>((r) => {
				server.closeAllConnections();
				server.close(() => r());
			})
	};
}
