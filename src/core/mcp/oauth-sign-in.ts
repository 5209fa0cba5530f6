import { randomBytes } from 'node:crypto';
import { formatDuration } from '../platform/text.js';
import type { Timers } from '../platform/timers.js';
import { untilAborted } from '../platform/until-aborted.js';
import { listenForCallback } from './oauth-callback.js';
import { storedAuthProvider } from './oauth-provider.js';
import type { OAuthStore } from './oauth-store.js';

/** How long a sign-in waits for the browser to come back before it gives up. */
export const SIGN_IN_TIMEOUT_MS = 5 * 60_000;

export interface SignInOptions {
  /** The server's name, for the page the browser shows. */
  name: string;
  url: URL;
  store: OAuthStore;
  timers: Timers;
  timeoutMs?: number;
  /** The user gave up (or the session is closing). */
  signal: AbortSignal;
  /** The page the user must open to sign in; the caller shows it (and may open a browser). */
  onAuthorizationUrl: (url: string) => void;
}

/**
 * One OAuth 2.1 sign-in to a remote MCP server, through the MCP SDK's `auth()`: metadata
 * discovery (protected resource, then authorization server), dynamic client registration,
 * an authorization URL with PKCE and a random `state`, the browser's answer on a local
 * callback, and the code exchanged for tokens, which the store keeps. Everything, discovery
 * included, ends at the deadline or when `signal` aborts; the callback server is closed in
 * every case. Throws an error saying what went wrong.
 */
export async function signInToServer(options: SignInOptions): Promise<void> {
  const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
  const timeoutMs = options.timeoutMs ?? SIGN_IN_TIMEOUT_MS;
  const deadline = new AbortController();
  const state = randomBytes(32).toString('base64url');
  const callback = await listenForCallback({ state, serverName: options.name, signal: deadline.signal });
  const onAbort = (): void => deadline.abort(new Error('the sign-in was cancelled'));
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener('abort', onAbort, { once: true });
  const timer = options.timers.setTimeout(
    () =>
      deadline.abort(
        new Error(
          `nobody signed in within ${formatDuration(timeoutMs)} (the browser never came back to ${callback.redirectUrl})`,
        ),
      ),
    timeoutMs,
  );
  // The SDK's requests (discovery, registration, the token exchange) end with the sign-in.
  const fetchFn = (url: string | URL, init?: RequestInit): Promise<Response> =>
    fetch(url, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, deadline.signal]) : deadline.signal });
  try {
    const provider = storedAuthProvider(options.store, options.url, {
      kind: 'sign-in',
      redirectUrl: callback.redirectUrl,
      state,
      onAuthorizationUrl: (url) => options.onAuthorizationUrl(url.href),
    });
    const started = await untilAborted(auth(provider, { serverUrl: options.url, fetchFn }), deadline.signal);
    if (started === 'AUTHORIZED') return;
    const code = await callback.code;
    const finished = await untilAborted(
      auth(provider, { serverUrl: options.url, authorizationCode: code, fetchFn }),
      deadline.signal,
    );
    if (finished !== 'AUTHORIZED') throw new Error('the authorization server did not take the code it gave');
  } finally {
    options.timers.clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
    await callback.close();
    // A sign-in that did not finish leaves no verifier behind (one that did, saving its tokens, took it away).
    if (options.store.read(options.url).codeVerifier) {
      await options.store.update(options.url, ({ codeVerifier: _unused, ...stored }) => stored);
    }
  }
}
