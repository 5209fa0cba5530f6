import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import packageJson from '../../../package.json' with { type: 'json' };
import type { OAuthStore, StoredAuth } from './oauth-store.js';

/**
 * A connection reached a server that wants a sign-in outrider has not done (or one that no
 * longer holds). A connection never signs in by itself: that takes the user, in a browser.
 */
export class SignInNeeded extends Error {
  constructor() {
    super('the server asks for a sign-in (OAuth)');
    this.name = 'SignInNeeded';
  }
}

/**
 * `connect`: a connection's provider. It presents the stored tokens, and the SDK refreshes
 * them when the server turns the access token down; it never registers a client or starts an
 * authorization (SignInNeeded instead). `sign-in`: the provider of one sign-in the user
 * started, whose browser comes back to `redirectUrl` with `state`.
 */
export type ProviderMode =
  { kind: 'connect' } | { kind: 'sign-in'; redirectUrl: string; state: string; onAuthorizationUrl: (url: URL) => void };

/** What a registration says of the client (RFC 7591): a public client on a loopback redirect, PKCE. */
function clientMetadata(redirectUrl: string): OAuthClientMetadata {
  return {
    client_name: 'outrider',
    software_id: 'outrider',
    software_version: packageJson.version,
    redirect_uris: [redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

/** A connection's redirect URL is never visited; it is the registered one when there is one. */
const UNUSED_REDIRECT = 'http://127.0.0.1/callback';

/**
 * The MCP SDK's OAuthClientProvider over outrider's store: client registration, tokens and
 * the PKCE verifier of `serverUrl` alone, as the SDK hands them over (each with its `issuer`,
 * so the SDK never shows one authorization server's credentials to another).
 */
export function storedAuthProvider(store: OAuthStore, serverUrl: URL, mode: ProviderMode): OAuthClientProvider {
  const read = (): StoredAuth => store.read(serverUrl);
  const registered = (): string[] => {
    const client = read().client;
    return client && 'redirect_uris' in client && Array.isArray(client.redirect_uris) ? client.redirect_uris : [];
  };
  const redirectUrl = (): string => (mode.kind === 'sign-in' ? mode.redirectUrl : (registered()[0] ?? UNUSED_REDIRECT));
  return {
    get redirectUrl() {
      return redirectUrl();
    },
    get clientMetadata() {
      return clientMetadata(redirectUrl());
    },
    ...(mode.kind === 'sign-in' ? { state: () => mode.state } : {}),
    clientInformation() {
      const { client } = read();
      if (mode.kind === 'connect') {
        if (!client) throw new SignInNeeded();
        return client;
      }
      // A registration made for another port of the loopback callback is made again for this one:
      // not every authorization server lets a loopback redirect change its port (RFC 8252 §7.3).
      return client && registered().includes(mode.redirectUrl) ? client : undefined;
    },
    async saveClientInformation(client: OAuthClientInformationMixed) {
      // A connection only stamps its registration with the issuer; it never keeps a new one.
      if (mode.kind === 'connect' && read().client?.client_id !== client.client_id) throw new SignInNeeded();
      await store.update(serverUrl, (stored) => ({ ...stored, client }));
    },
    // A sign-in always goes through the browser: it is what the user asked for (another account, say).
    tokens: () => (mode.kind === 'connect' ? read().tokens : undefined),
    async saveTokens(tokens) {
      await store.update(serverUrl, ({ codeVerifier: _done, ...stored }) => ({ ...stored, tokens }));
    },
    redirectToAuthorization(url) {
      if (mode.kind === 'connect') throw new SignInNeeded();
      mode.onAuthorizationUrl(url);
    },
    async saveCodeVerifier(codeVerifier) {
      if (mode.kind === 'sign-in') await store.update(serverUrl, (stored) => ({ ...stored, codeVerifier }));
    },
    codeVerifier() {
      const { codeVerifier } = read();
      if (!codeVerifier) throw new Error('no sign-in is under way for this server (its PKCE verifier is gone): sign in again');
      return codeVerifier;
    },
    async invalidateCredentials(scope) {
      if (scope === 'discovery') return;
      await store.update(serverUrl, (stored) => {
        if (scope === 'all') return { serverUrl: stored.serverUrl };
        const { client, tokens, codeVerifier, ...rest } = stored;
        return {
          ...rest,
          ...(scope !== 'client' && client ? { client } : {}),
          ...(scope !== 'tokens' && tokens ? { tokens } : {}),
          ...(scope !== 'verifier' && codeVerifier ? { codeVerifier } : {}),
        };
      });
    },
  };
}
