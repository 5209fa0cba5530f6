import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/**
 * A remote MCP server behind OAuth 2.1, in this process, made of the MCP SDK's own server
 * parts: its authorization server router (RFC 8414 and RFC 9728 metadata, dynamic client
 * registration, an authorize endpoint, a token endpoint that checks PKCE) and its bearer-token
 * middleware in front of a streamable HTTP MCP endpoint with one tool, `whoami`. The authorize
 * endpoint approves at once, as a user clicking "Allow" would: a test plays the browser with
 * `approve` (fetch the authorization URL, follow its redirect to outrider's local callback).
 */
export interface OAuthMcpServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** Every access and refresh token issued so far (none may end up in a log or a transcript). */
  issued(): string[];
  /** Dynamic registrations, and the token endpoint's requests by grant type. */
  counts: { registrations: number; authorizationCode: number; refreshToken: number };
  /** The access tokens issued so far stop working, as when they expire (their refresh tokens still work). */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

interface IssuedAccess {
  clientId: string;
  resource?: URL;
  expired: boolean;
}

export async function startOAuthMcpServer(): Promise<OAuthMcpServer> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mcpUrl = new URL('/mcp', base);

  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, { clientId: string; params: AuthorizationParams }>();
  const access = new Map<string, IssuedAccess>();
  const refresh = new Map<string, { clientId: string; resource?: URL }>();
  const counts = { registrations: 0, authorizationCode: 0, refreshToken: 0 };

  const issue = (clientId: string, resource: URL | undefined): OAuthTokens => {
    const accessToken = `at-${randomUUID()}`;
    const refreshToken = `rt-${randomUUID()}`;
    access.set(accessToken, { clientId, resource, expired: false });
    refresh.set(refreshToken, { clientId, resource });
    return { access_token: accessToken, token_type: 'Bearer', expires_in: 3600, refresh_token: refreshToken };
  };

  const provider: OAuthServerProvider = {
    clientsStore: {
      getClient: (id) => clients.get(id),
      registerClient: (client) => {
        counts.registrations += 1;
        const full = client as OAuthClientInformationFull;
        clients.set(full.client_id, full);
        return full;
      },
    },
    // "Allow", at once: back to the client's redirect URI with a code and the state it sent.
    authorize: async (client, params, res) => {
      const code = randomUUID();
      codes.set(code, { clientId: client.client_id, params });
      const target = new URL(params.redirectUri);
      target.searchParams.set('code', code);
      if (params.state !== undefined) target.searchParams.set('state', params.state);
      res.redirect(302, target.href);
    },
    challengeForAuthorizationCode: async (_client, code) => {
      const found = codes.get(code);
      if (!found) throw new InvalidGrantError('unknown authorization code');
      return found.params.codeChallenge;
    },
    exchangeAuthorizationCode: async (client, code, _verifier, redirectUri, resource) => {
      const found = codes.get(code);
      codes.delete(code);
      if (!found || found.clientId !== client.client_id) throw new InvalidGrantError('unknown authorization code');
      if (redirectUri !== found.params.redirectUri)
        throw new InvalidGrantError('redirect_uri differs from the authorization request');
      counts.authorizationCode += 1;
      return issue(client.client_id, resource ?? found.params.resource);
    },
    exchangeRefreshToken: async (client, refreshToken, _scopes, resource) => {
      const found = refresh.get(refreshToken);
      if (!found || found.clientId !== client.client_id) throw new InvalidGrantError('unknown refresh token');
      refresh.delete(refreshToken); // rotated: each refresh token works once
      counts.refreshToken += 1;
      return issue(client.client_id, resource ?? found.resource);
    },
    verifyAccessToken: async (token) => {
      const found = access.get(token);
      if (!found) throw new InvalidTokenError('unknown token');
      if (found.expired) throw new InvalidTokenError('Token has expired');
      return {
        token,
        clientId: found.clientId,
        scopes: [],
        expiresAt: Math.floor(Date.now() / 1000) + 3600,
        ...(found.resource ? { resource: found.resource } : {}),
      };
    },
  };

  const app = createMcpExpressApp();
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(base),
      resourceServerUrl: mcpUrl,
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      clientRegistrationOptions: { rateLimit: false },
    }),
  );
  const bearer = requireBearerAuth({
    verifier: provider,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
    expectedResource: mcpUrl,
  });
  // Stateless streamable HTTP: a server and a transport per request, behind the bearer check.
  app.post('/mcp', bearer, async (req: any, res: any) => {
    const mcp = new McpServer({ name: 'oauth-test', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Says which OAuth client is calling' }, (extra: any) => ({
      content: [{ type: 'text' as const, text: `signed in as ${String(extra.authInfo?.clientId)}` }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close().then(() => mcp.close()));
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.get('/mcp', bearer, (_req: any, res: any) => res.status(405).set('allow', 'POST').end());
  server.on('request', app);

  return {
    url: mcpUrl.href,
    issued: () => [...access.keys(), ...refresh.keys()],
    counts,
    expireAccessTokens: () => {
      for (const issued of access.values()) issued.expired = true;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Plays the browser: opens the authorization URL (the server approves and redirects), then
 * follows the redirect to the local callback, with `state` replaced when a test asks.
 */
export async function approve(
  authorizationUrl: string,
  options: { state?: string } = {},
): Promise<{ callback: string; status: number; text: string }> {
  const authorize = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = authorize.headers.get('location');
  if (authorize.status !== 302 || !location) {
    throw new Error(`the authorize endpoint answered ${authorize.status}: ${await authorize.text()}`);
  }
  const callback = new URL(location);
  if (options.state !== undefined) callback.searchParams.set('state', options.state);
  const answer = await fetch(callback);
  return { callback: callback.href, status: answer.status, text: await answer.text() };
}
